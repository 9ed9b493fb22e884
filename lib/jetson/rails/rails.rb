# frozen_string_literal: true

require "jetson"
# ActiveSupport first, then its parts: Rails main's active_support/json
# (through time_formats.rb) needs what require "active_support" sets up
# (ActiveSupport::Ractors, autoloaded).
require "active_support"
require "active_support/json"
require "active_support/time"
require "bigdecimal"
require "active_support/core_ext/big_decimal/conversions"

module Jetson
  # Rails mode: ActiveSupport's JSON encoding (as_json over the tree, the json
  # gem, then ActiveSupport's escaping) done in one native pass with the same
  # bytes. Nothing changes until the app opts in:
  #
  #   require "jetson/rails"
  #   Jetson::Rails.install!   # ActiveSupport.json_encoder = Jetson::RailsEncoder
  #
  # or, in a Rails app, `config.jetson.rails_encoder = true` (see Jetson::Railtie).
  module Rails
    # Where the stock definitions live; a definition found elsewhere when this
    # file loads (an app's override loaded first) disables that fast path.
    # @api private
    STOCK_SOURCES = %r{/(?:active_support|active_model|active_record)/|/time\.rb\z}

    # Every module's and class's method hooks pass through Jetson::MethodWatch
    # (ext/jetson/rails/stock_memo.c), which tells the native memo that a kept
    # answer may need checking (see memo_answer). Ruby calls these hooks
    # only when methods are defined or modules included: nothing per call.
    ::Module.prepend(MethodWatch) unless ::Module < MethodWatch

    # [owner, name, owner's method, whether it is defined where the stock one
    # lives], the last settled once here rather than on every check.
    # @api private
    def self.capture_methods(list)
      list.map do |owner, name|
        method = owner.instance_method(name)
        [owner, name, method, stock_definition?(method)].freeze
      end.freeze
    end

    # Whether `method` is defined where ActiveSupport, ActiveModel or
    # ActiveRecord (or Ruby's time.rb) define theirs, or in C.
    # @api private
    def self.stock_definition?(method)
      path = method.source_location&.first
      path.nil? || STOCK_SOURCES.match?(path)
    end
    private_class_method :capture_methods

    # The methods each native fast path stands in for, as found when this file
    # was loaded. A class keeps its fast path only while looking these up from
    # it still finds the same definitions (see stock?); anything redefined,
    # prepended or overridden in a subclass goes through Ruby.
    # @api private
    STOCK_METHODS = {
      time: [[::Time, :as_json], [::Time, :xmlschema], [::Time, :formatted_offset], [::Time, :strftime]],
      time_with_zone: [[ActiveSupport::TimeWithZone, :as_json], [ActiveSupport::TimeWithZone, :xmlschema],
                       [ActiveSupport::TimeWithZone, :formatted_offset], [::Time, :strftime]],
      date: [[::Date, :as_json], [::Date, :strftime]],
      float: [[::Float, :as_json]],
      # to_s is the "F" format ActiveSupport prepends.
      decimal: [[::BigDecimal, :as_json], [ActiveSupport::BigDecimalWithDefaultFormat, :to_s]],
      hash: [[::Hash, :as_json]],
      array: [[::Array, :as_json]]
    }.transform_values { |list| capture_methods(list) }.freeze

    # Arguments for Jetson.rails_generate: this module answers stock?, then
    # the classes with native encodings.
    # @api private
    CLASSES = [self, ActiveSupport::TimeWithZone, ::Date, ::DateTime, ::BigDecimal].freeze

    class << self
      # Makes ActiveSupport (to_json, render json:, ActiveSupport::JSON.encode)
      # encode with Jetson: `ActiveSupport.json_encoder = Jetson::RailsEncoder`.
      # In a Rails app, `config.jetson.rails_encoder = true` calls it at boot
      # (see {Jetson::Railtie}).
      # When the encoder it replaces is one of ActiveSupport's own
      # (JSONGemEncoder, or 8.1's JSONGemCoderEncoder), Jetson writes that
      # one's bytes from then on (see {reference_encoder}).
      # @return [Class] the encoder that was in place
      def install!
        previous = ActiveSupport.json_encoder
        return previous if previous.equal?(RailsEncoder)

        self.reference_encoder = previous if EncodingRules.stock_encoder?(previous)
        ActiveSupport.json_encoder = RailsEncoder
        @replaced_encoder = previous
      end

      # Puts back the encoder {install!} replaced (or the one given; without
      # an install!, the one ActiveSupport sets when it loads).
      # @param encoder [Class] the encoder to put in place
      # @return [Class] `encoder`
      def uninstall!(encoder = nil)
        encoder ||= @replaced_encoder || EncodingRules.default_encoder
        @replaced_encoder = nil
        ActiveSupport.json_encoder = encoder
      end

      # The ActiveSupport encoder whose bytes {Jetson::RailsEncoder} writes:
      # the one {install!} replaced when it is ActiveSupport's own, else the
      # one ActiveSupport picks when it loads (JSONGemCoderEncoder on 8.1
      # with json 2.15.2 or later, JSONGemEncoder otherwise).
      # @return [Class]
      def reference_encoder
        @reference_encoder || EncodingRules.default_encoder
      end

      # @param encoder [Class] ActiveSupport's JSONGemEncoder or JSONGemCoderEncoder
      def reference_encoder=(encoder)
        unless encoder.nil? || EncodingRules.stock_encoder?(encoder)
          raise ArgumentError, "#{encoder.inspect} is not one of ActiveSupport's encoders"
        end

        @reference_encoder = encoder
      end

      # @return [Boolean] whether ActiveSupport encodes with {Jetson::RailsEncoder}
      def installed?
        ActiveSupport.json_encoder == RailsEncoder
      end

      # Jetson.rails_generate's flags for the Builder's native writers, which
      # write what the app's encoder writes for a document without options
      # (Jbuilder's `attributes!.to_json`): that encoder's version rules and
      # escape_js_separators_in_json of the moment (under the Coder encoder,
      # its walk with its block, EncodingRules.coder_proc, as RailsEncoder);
      # nil when the app's encoder is its own, whose to_json must then write.
      # @api private
      def builder_flags
        encoder = ActiveSupport.json_encoder
        encoder = reference_encoder if encoder.equal?(RailsEncoder)
        return OjRules.flags if OjRules.encoder?(encoder)
        return unless EncodingRules.stock_encoder?(encoder)

        EncodingRules.call_flags(EncodingRules.instance_rules(encoder, EMPTY_OPTIONS)[1])
      end

      # What the native writers take beside builder_flags: Oj::Rails under
      # Oj's encoder (which writes the values whose bytes are Oj's own),
      # else the Coder encoder's block (EncodingRules.coder_proc).
      # @api private
      def builder_encoder_handle(flags)
        flags.anybits?(OjRules::FLAG_OJ) ? ::Oj::Rails : EncodingRules.coder_proc
      end

      EMPTY_OPTIONS = {}.freeze
      private_constant :EMPTY_OPTIONS

      # ActiveSupport 8.1's escape_js_separators_in_json = false (its 8.1
      # defaults) leaves U+2028 and U+2029 as they are: cached fragments'
      # texts differ, so their namespace says so (views/fragment_cache.rb).
      # @api private
      def js_separators_unescaped?
        !EncodingRules.escape_js?
      end

      # Whether klass still answers the methods behind the `kind` fast path
      # with ActiveSupport's (or Ruby's) own definitions.
      # @api private
      def stock?(klass, kind)
        methods = stock_methods(klass, kind)
        return false unless methods

        methods.all? do |owner, name, stock, stock_source|
          # A method of klass's own line (not, e.g., Time#strftime behind a
          # TimeWithZone) must also not be overridden below its owner.
          stock_source && owner.instance_method(name) == stock &&
            (!(klass <= owner) || klass.instance_method(name).owner.equal?(owner))
        end
      rescue NameError
        false # undefined (undef_method) below its owner: Ruby raises what it raises
      end

      # The native side's questions (ext/jetson/rails/stock_memo.c), answered with
      # the methods each answer rests on: [answer, [[klass, :method], ...]].
      # It keeps an answer until one of those methods resolves to another
      # definition, so a class is asked about once, not on every call. When
      # it means to keep the answer (keeping), the methods are nil unless
      # every change to them would reach MethodWatch (see watched?): an
      # answer it would not hear about is asked for on every call.
      # @api private
      def memo_answer(question, subject, keeping = false)
        answer, deps = fresh_answer(question, subject)
        [answer, keeping && !watched?(deps) ? nil : deps]
      end

      # The hooks through which Ruby reports a method defined in, removed
      # from or undefined in a module (for a singleton class, its object's
      # singleton_ hooks).
      # @api private
      WATCHED_HOOKS = %i[method_added method_removed method_undefined].freeze
      # @api private
      WATCHED_SINGLETON_HOOKS = %i[singleton_method_added singleton_method_removed singleton_method_undefined].freeze
      # Unbound, so that a class's own `method` or `instance_method` (a
      # column, a DSL) is not what answers.
      # @api private
      HOOK_LOOKUPS = [::Kernel.instance_method(:method), ::Module.instance_method(:instance_method),
                      ::Module.instance_method(:ancestors), ::Module.instance_method(:singleton_class?)].freeze

      # Whether every module that decides what the classes in deps resolve
      # their methods to (their ancestors) sends its method hooks through to
      # Jetson::MethodWatch, which tells the native memo. A module with a hook
      # of its own, even one that calls super, is not trusted: the answer is
      # then not kept. Include, prepend and extend are seen whatever the
      # modules define: a module whose append_features skips super is not
      # included at all.
      # @api private
      def watched?(deps)
        return false unless deps.is_a?(Array)

        method, instance_method, ancestors, singleton = HOOK_LOOKUPS
        seen, trees = watched_modules
        classes = deps.map(&:first).uniq
        classes.reject! { trees.key?(_1) } if trees
        all = classes.flat_map { ancestors.bind_call(_1) }.uniq.all? do |mod|
          next true if seen&.key?(mod)

          watched = if singleton.bind_call(mod)
                      # Its methods are its object's singleton methods, whose
                      # hooks are looked up from the singleton class itself.
                      WATCHED_SINGLETON_HOOKS.all? { instance_method.bind_call(mod, _1).owner.equal?(MethodWatch) }
                    else
                      WATCHED_HOOKS.all? { method.bind_call(mod, _1).owner.equal?(MethodWatch) }
                    end
          seen[mod] = true if watched && seen
          watched
        end
        classes.each { trees[_1] = true } if all && trees
        all
      end

      # The modules watched? found watched, and the classes all of whose
      # ancestors are (a model's 70 ancestors cost 400 µs to check, 30 µs
      # just to list), for as long as no hook can have changed and no
      # ancestry either: MethodWatch's second count has not moved. The main
      # Ractor's only (a module's instance variables).
      # @api private
      def watched_modules
        return nil unless Ractor.current.equal?(Ractor.main)

        hooks = MethodWatch.epoch[1]
        unless @watched_modules&.first == hooks
          @watched_modules = [hooks, {}.compare_by_identity, {}.compare_by_identity]
        end
        @watched_modules.drop(1)
      end

      private def fresh_answer(question, subject)
        case question
        when :plan then RecordPlan.answer(subject)
        when :collection_probe then RecordPlan.collection_probe(subject)
        when :attribute_set_classes then [attribute_set_classes, attribute_set_methods]
        when :json_decode then DbCast.json_decode_answer
        when :stock_attribute_class? then [stock_attribute_class?(subject), %i[value initialized?].map { [subject, _1] }]
        when :record_cache_keys then RecordCacheKeys.stock_answer(subject)
        else
          methods = stock_methods(subject, question) || []
          # What klass resolves each name to (for a method of another line,
          # such as Time#strftime behind TimeWithZone, what its owner does).
          deps = methods.map { |owner, name| subject <= owner ? [subject, name] : [owner, name] }
          [stock?(subject, question), deps]
        end
      end

      # Hash#as_json's only:/except: subset, for the native as_json pass.
      # @api private
      def subset(hash, options)
        if (attrs = options[:only])
          hash.slice(*Array(attrs))
        elsif (attrs = options[:except])
          hash.except(*Array(attrs))
        else
          hash
        end
      end

      # The template handler ActionView has registered for extension, nil
      # when none (or ActionView is not loaded): registered_template_handler
      # up to Rails 8.1, ActionView::Template::Handlers.template_handlers on
      # Rails main, which removed the other.
      # @api private
      def template_handler(extension)
        return nil unless defined?(::ActionView::Template)

        template = ::ActionView::Template
        return template.registered_template_handler(extension) if template.respond_to?(:registered_template_handler)

        handlers = template::Handlers
        handlers.template_handlers[extension.to_sym] if handlers.respond_to?(:template_handlers)
      end

      # ActiveSupport's encoder raises the json gem's errors: Jetson's are
      # raised as those.
      # @api private
      def raise_as_json_gem_error(error)
        raise ::JSON::NestingError, error.message if error.is_a?(Jetson::NestingError)

        raise ::JSON::GeneratorError.new(error.message, error.invalid_object)
      end

      # @api private
      def stock_methods(klass, kind)
        case kind
        when :model then model_methods
        when :record then record_methods(klass)
        when :relation then relation_methods(klass)
        else STOCK_METHODS[kind]
        end
      end

      # ActiveModel::Serializers::JSON once ActiveModel is loaded (apps load it
      # after this file), else nil.
      # @api private
      def active_model
        ::ActiveModel::Serializers::JSON if defined?(::ActiveModel::Serializers::JSON)
      end

      # The native encoder reads a record's attributes from ActiveModel's
      # attribute set (ext/jetson/rails/attribute_set.c) only while the methods it
      # stands in for are the stock ones:
      # [LazyAttributeSet, Attribute::Uninitialized, IndexedRow or nil], or
      # nil. From ActiveRecord 8.0 on, a loaded record's raw values are an
      # ActiveRecord::Result::IndexedRow (a Hash before): read natively while
      # the methods the set calls on it are ActiveRecord's.
      # @api private
      def attribute_set_classes
        return nil unless defined?(::ActiveModel::LazyAttributeSet) && defined?(::ActiveModel::Attribute)
        # A private constant of Attribute's.
        return nil unless ::ActiveModel::Attribute.const_defined?(:Uninitialized, false)

        set = ::ActiveModel::LazyAttributeSet
        methods = [set.instance_method(:keys), set.instance_method(:fetch_value), set.instance_method(:[])]
        return nil unless methods.all? { |method| stock_definition?(method) }

        [set, ::ActiveModel::Attribute.const_get(:Uninitialized, false), indexed_row_class]
      end

      INDEXED_ROW_METHODS = %i[keys each_key key? fetch].freeze
      private_constant :INDEXED_ROW_METHODS

      # @api private
      def indexed_row_class
        return nil unless defined?(::ActiveRecord::Result::IndexedRow)

        row = ::ActiveRecord::Result::IndexedRow
        row if INDEXED_ROW_METHODS.all? { |name| stock_definition?(row.instance_method(name)) }
      rescue NameError
        nil
      end

      # @api private
      def attribute_set_methods
        return [] unless defined?(::ActiveModel::LazyAttributeSet)

        methods = %i[keys fetch_value []].map { [::ActiveModel::LazyAttributeSet, _1] }
        return methods unless defined?(::ActiveRecord::Result::IndexedRow)

        methods + INDEXED_ROW_METHODS.map { [::ActiveRecord::Result::IndexedRow, _1] }
      end

      # Once per class and call: whether an attribute of this class is
      # initialized and its value, once cast, is its @value (Attribute's own
      # value and initialized?).
      # @api private
      def stock_attribute_class?(klass)
        attribute = ::ActiveModel::Attribute
        klass <= attribute && %i[value initialized?].all? do |name|
          method = klass.instance_method(name)
          method.owner.equal?(attribute) && stock_definition?(method)
        end
      end

      # Once per class and call: whether a record's attribute_names is
      # ActiveRecord's (its attribute set's keys).
      # @api private
      def native_attribute_names?(klass)
        return false unless defined?(::ActiveRecord::AttributeMethods) && klass <= ::ActiveRecord::Base

        method = klass.instance_method(:attribute_names)
        method.owner.equal?(::ActiveRecord::AttributeMethods) && stock_definition?(method)
      end

      # Once per class, attribute name and call: :generated when
      # record.send(name) is the reader ActiveRecord generated for that
      # attribute, :primary_key when it is ActiveRecord's id and name the
      # primary key, else nil. Both come down to _read_attribute(name).
      # @api private
      def attribute_reader(klass, name)
        return nil unless klass <= ::ActiveRecord::Base && !klass.attribute_aliases.key?(name)

        read = klass.instance_method(:_read_attribute)
        return nil unless read.owner.equal?(::ActiveRecord::AttributeMethods::Read) && stock_definition?(read)

        reader = klass.instance_method(name)
        return nil unless stock_definition?(reader)

        if reader.owner.equal?(klass.send(:generated_attribute_methods))
          :generated
        elsif reader.owner.equal?(::ActiveRecord::AttributeMethods::PrimaryKey) && reader.name == :id &&
              klass.primary_key == name
          :primary_key
        end
      rescue NameError
        nil
      end

      private

      # ActiveRecord's serializable_hash and the ActiveModel methods it builds
      # on, captured when first needed; nil for classes Jetson leaves to them
      # (not ActiveRecord, or single-table inheritance, which adds an except:).
      def record_methods(klass)
        return nil unless defined?(::ActiveRecord::Base) && klass <= ::ActiveRecord::Base
        # A record with singleton methods: its singleton class has no schema.
        return nil if klass.singleton_class?
        # Single-table inheritance adds its column to except:, which the
        # native side takes from the model's plan (without a plan, Ruby
        # serializes).

        @record_methods ||= capture_methods(
          [[::ActiveRecord::Serialization, :serializable_hash], [::ActiveRecord::Serialization, :attribute_names_for_serialization],
           [::ActiveModel::Serialization, :read_attribute_for_serialization], [::ActiveModel::Serialization, :serializable_attributes],
           [::ActiveModel::Serialization, :serializable_add_includes]]
        )
      end

      # A relation's as_json is its records' (delegated to records), and
      # records is ActiveRecord's own (Relation's, or CollectionProxy's
      # load_target).
      def relation_methods(klass)
        return nil unless defined?(::ActiveRecord::Relation) && klass <= ::ActiveRecord::Relation
        return nil if klass.singleton_class?

        proxy = ::ActiveRecord::Associations::CollectionProxy
        @relation_methods ||= capture_methods([[::ActiveRecord::Delegation, :as_json],
                                               [::ActiveRecord::Relation, :records]])
        @proxy_methods ||= capture_methods([[::ActiveRecord::Delegation, :as_json], [proxy, :records]])
        klass <= proxy ? @proxy_methods : @relation_methods
      end

      # ActiveModel's as_json, captured when first needed (see active_model).
      def model_methods
        @model_methods ||= begin
          mod = active_model
          mod && capture_methods([[mod, :as_json]])
        end
      end
    end
  end

  # A drop-in for ActiveSupport's JSON encoder (ActiveSupport.json_encoder=):
  # `new(options)` and `#encode(value)`, with the bytes of the loaded
  # ActiveSupport's encoder named by {Jetson::Rails.reference_encoder} (8.1:
  # JSONGemCoderEncoder by default). Holds only its options and what they
  # mean, settled when it is made and never changed after: an instance works
  # frozen and can be made Ractor-shareable (Rails main keeps its instances
  # without options and with escape: false frozen), and one instance can be
  # cached and shared between threads. ActiveSupport's settings
  # (escape_html_entities_in_json, escape_js_separators_in_json,
  # use_standard_json_time_format, time_precision) are read on every call,
  # and every combination of them and of the per-call escape: and
  # escape_html_entities: options is written natively.
  #
  # @example
  #   ActiveSupport.json_encoder = Jetson::RailsEncoder  # what Jetson::Rails.install! does
  #   { "at" => Time.now, "html" => "<b>" }.to_json       # ActiveSupport's bytes
  class RailsEncoder
    # @return [Hash] the options given to `to_json` / `as_json` (`only:`, `except:`, ...)
    attr_reader :options

    # @param options [Hash, nil] the top-level `as_json` options, as ActiveSupport passes them
    def initialize(options = nil)
      @options = options || {}
      # What the options mean under the reference encoder of the moment (an
      # encoder installed later settles them again in encode, per call).
      @rules = Rails::EncodingRules.instance_rules(Rails.reference_encoder, @options)
    end

    # The JSON ActiveSupport's stock encoder writes for `value`, in one native
    # pass.
    # @param value [Object]
    # @return [String]
    # @raise [JSON::GeneratorError] invalid UTF-8 and the like, as ActiveSupport raises it
    # @raise [JSON::NestingError] too deep a document
    def encode(value)
      settings = ActiveSupport::JSON::Encoding
      rules = @rules
      encoder = Rails.reference_encoder
      # Made under another reference encoder: what the options mean under
      # this one (kept per encoder for no options, the instances Rails keeps).
      rules = Rails::EncodingRules.instance_rules(encoder, options) unless rules.first.equal?(encoder)
      _, flags, as_json_options, escape, escape_html = rules
      # The settings of the moment: HTML entities (unless the call says),
      # the separators, nothing at all under escape: false.
      escape_html = settings.escape_html_entities_in_json if escape_html.nil?
      escape_html &&= escape
      flags = Rails::EncodingRules.call_flags(flags, escape)
      # Without the Coder's block, the Coder encoder itself: same bytes, not
      # an error in the app (rails8_settings_test asserts the block is found).
      unless flags
        Rails::Diagnostics.fallback(:calls, :coder_block, encoder, nil, 1)
        return encoder.new(options).encode(value)
      end

      # The options go to the top-level as_json (done natively), as in ActiveSupport.
      Jetson.rails_generate(value, as_json_options, escape_html, settings.use_standard_json_time_format,
                            settings.time_precision, Rails::CLASSES, Rails.active_model, flags,
                            Rails::EncodingRules.coder_proc)
    rescue Jetson::NestingError, Jetson::GeneratorError => e
      Rails.raise_as_json_gem_error(e)
    end
  end
end

require_relative "encoding_rules"
require_relative "oj_rules"
require_relative "oj_encoder"
require_relative "record_plan"
require_relative "db_cast"
require_relative "diagnostics"
