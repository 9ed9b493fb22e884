# frozen_string_literal: true

require "json"
require "jetson/rails/rails"
require "active_support/core_ext/hash/deep_merge"

module Jetson
  # Jbuilder's DSL with Jbuilder's output, without Jbuilder's Hash tree:
  #
  #   Jetson::Builder.encode do |json|
  #     json.id post.id
  #     json.comments post.comments do |comment|
  #       json.body comment.body
  #     end
  #   end
  #
  # The document is kept as native nodes (ext/jetson/builder/, where set!,
  # method_missing, array!, extract!, call, child!, nil!, merge! and
  # attributes! are defined) and target! encodes it the way Jbuilder's
  # `to_json` does under ActiveSupport, in one native pass. Like Jbuilder it
  # is a BasicObject, so almost any name is a key (`json.id`, `json.type`).
  # `require "jetson/jbuilder"` makes ::Jbuilder this class.
  #
  # Errors, as Jbuilder's (defined again under Jbuilder by jetson/jbuilder):
  # `NullError` (a `NoMethodError`: a key added after {#nil!}), `ArrayError`
  # (a key added to an Array) and `MergeError` (values that do not merge).
  # Where it differs from Jbuilder on purpose: docs/jbuilder.md.
  class Builder < ::BasicObject
    # Jbuilder's three errors, defined in `namespace` (Jetson::Builder, and
    # Jbuilder under jetson/jbuilder, whose errors carry its names): adding a
    # key after nil! (a NoMethodError), adding a key to an Array, merging
    # values that do not merge. The extension raises those of the builder's
    # class.
    # @api private
    def self.define_errors(namespace)
      namespace.const_set(:NullError, ::Class.new(::NoMethodError) do
        def self.build(key) = new("Failed to add #{key.to_s.inspect} property to null object")
      end)
      namespace.const_set(:ArrayError, ::Class.new(::StandardError) do
        def self.build(key) = new("Failed to add #{key.to_s.inspect} property to an array")
      end)
      namespace.const_set(:MergeError, ::Class.new(::StandardError) do
        def self.build(current_value, updates) = new("Can't merge #{updates.inspect} into #{current_value.inspect}")
      end)
    end
    define_errors(self)

    # BLANK (defined natively): "nothing set here yet". Equal to any Blank;
    # encodes as {} (an object without instance variables). What
    # {Jetson::Builder#attributes!} returns where nothing was set (`Jbuilder::Blank` under
    # jetson/jbuilder).
    class Blank
      class << self
        # The name inspect shows (jetson/jbuilder: Jbuilder::Blank, as in
        # Jbuilder's error messages).
        # @api private
        attr_accessor :shown_as
      end

      # @return [Boolean] true for any Blank
      def ==(other)
        super || Blank === other
      end

      # @return [String]
      def inspect
        Blank.shown_as ? super.sub(Blank.name, Blank.shown_as) : super
      end

      # @return [true]
      def empty?
        true
      end
    end

    # Turns keys into their output form: the name, then each format in turn
    # (a Proc is called, a Symbol is sent, keyword formats get their
    # arguments). Each key is worked out once per formatter.
    #
    # @example
    #   Jetson::Builder::KeyFormatter.new(camelize: :lower).format(:first_name)  # => "firstName"
    class KeyFormatter
      # @param formats [Array<Symbol, Proc>] String methods to send, or Procs to call, in turn
      # @param formats_with_arguments [Hash{Symbol => Object}] String methods and their arguments
      def initialize(*formats, **formats_with_arguments)
        @steps = formats.map { |format| [format, []] } +
                 formats_with_arguments.map { |format, arguments| [format, Array(arguments)] }
        @cache = {}
        @lock = ::Mutex.new
      end

      # @param key [String, Symbol]
      # @return [String] the key as it is written
      def format(key)
        @cache.fetch(key) { @lock.synchronize { @cache[key] ||= apply(key) } }
      end

      private

      def apply(key)
        @steps.reduce(key.is_a?(::Symbol) ? key.name : key.to_s) do |text, (format, arguments)|
          format.is_a?(::Proc) ? format.call(text, *arguments) : text.send(format, *arguments)
        end
      end
    end

    @@key_formatter = nil
    @@ignore_nil = false
    @@deep_format_keys = false

    # The key format of builders created afterwards (`Jbuilder.key_format
    # camelize: :lower`): the arguments of {KeyFormatter#initialize}.
    # @return [KeyFormatter]
    def self.key_format(...)
      @@key_formatter = KeyFormatter.new(...)
    end

    # Whether builders created afterwards drop keys set to nil.
    # @param value [Boolean]
    # @return [Boolean]
    def self.ignore_nil(value = true)
      @@ignore_nil = value
    end

    # Whether builders created afterwards also format the keys of Hashes given
    # as values.
    # @param value [Boolean]
    # @return [Boolean]
    def self.deep_format_keys(value = true)
      @@deep_format_keys = value
    end

    # The JSON of a builder made with these arguments and block.
    # @example
    #   Jetson::Builder.encode { |json| json.id 1 }  # => "{\"id\":1}"
    # @return [String]
    def self.encode(...)
      new(...).target!
    end

    # Whether klass (a subclass) keeps Jetson::Builder's method_missing: key
    # names become methods (see ext/jetson/builder/dsl.c) only for those; asked
    # natively once per builder.
    # @api private
    def self.own_method_missing?(klass)
      klass.instance_method(:method_missing).owner.equal?(Builder)
    end

    # Whether collection is an ActiveRecord relation or association whose
    # map, each and records are ActiveRecord's own, so that mapping it is
    # walking its records (asked natively once per class and builder).
    # @api private
    def self.plain_relation?(collection)
      return false unless defined?(::ActiveRecord::Relation) && ::ActiveRecord::Relation === collection

      relation = ::ActiveRecord::Relation
      proxy = ::ActiveRecord::Associations::CollectionProxy
      records_owner = proxy === collection ? proxy : relation
      collection.method(:map).unbind == ::Enumerable.instance_method(:map) &&
        collection.method(:each).unbind == relation.instance_method(:each) &&
        collection.method(:records).unbind == records_owner.instance_method(:records)
    end

    # @param key_formatter [KeyFormatter, nil] the key format (default: {.key_format}'s)
    # @param ignore_nil [Boolean] drop keys set to nil (default: {.ignore_nil}'s)
    # @param deep_format_keys [Boolean] format the keys of Hashes given as values too
    # @yieldparam json [Builder] the new builder, to fill
    def initialize(key_formatter: @@key_formatter, ignore_nil: @@ignore_nil, deep_format_keys: @@deep_format_keys)
      _setup(key_formatter, ignore_nil, deep_format_keys)
      _share_records { yield self } if defined?(yield)
    end

    # Key format for this builder; restored at the end of each block.
    # @example
    #   json.key_format! camelize: :lower
    #   json.first_name "Ada"  # "firstName": "Ada"
    # @return [KeyFormatter]
    def key_format!(...)
      self._key_formatter = KeyFormatter.new(...)
    end

    # Drops keys set to nil from here on (not restored at the end of a block).
    # @param value [Boolean]
    # @return [Boolean]
    def ignore_nil!(value = true)
      self._ignore_nil = value
    end

    # Also formats the keys of Hashes given as values (restored at the end of
    # each block).
    # @param value [Boolean]
    # @return [Boolean]
    def deep_format_keys!(value = true)
      self._deep_format_keys = value
    end

    # The JSON, as Jbuilder's `attributes!.to_json` would write it under
    # ActiveSupport (its settings read now): with ActiveSupport's encoder or
    # Jetson's, ActiveSupport's bytes; with Oj's Rails encoder
    # (Oj.optimize_rails), Oj's bytes, written natively (Jetson::Rails::OjRules).
    # An app with another encoder of its own gets that encoder's output.
    # @return [String]
    # @raise [JSON::GeneratorError, JSON::NestingError] as ActiveSupport's encoder raises them
    def target!
      flags = Rails.builder_flags
      return attributes!.to_json unless flags

      settings = ::ActiveSupport::JSON::Encoding
      _encode(settings.escape_html_entities_in_json, settings.use_standard_json_time_format,
              settings.time_precision, Rails::CLASSES, Rails.active_model, flags, Rails.builder_encoder_handle(flags))
    rescue NestingError, GeneratorError => e
      Rails.raise_as_json_gem_error(e)
    end

    private

    # ActiveSupport's settings of the moment, as the native writers take them
    # (target!, the JSON of a cached fragment); nil when the app's encoder is
    # its own, whose to_json must then write.
    def _encoding_settings
      flags = Rails.builder_flags
      return unless flags

      settings = ::ActiveSupport::JSON::Encoding
      [settings.escape_html_entities_in_json, settings.use_standard_json_time_format, settings.time_precision,
       Rails::CLASSES, Rails.active_model, flags, Rails.builder_encoder_handle(flags)]
    end

    # A cached JSON fragment as the Ruby objects Jbuilder would hold, where
    # its semantics need them (attributes!, deep_format_keys!, a Hash of the
    # app's merged with a cached object).
    def _parse_json(text)
      ::JSON.parse(text)
    end

    # Jbuilder's _format_keys, called natively only under deep_format_keys!.
    def _format_keys(value)
      case value
      when ::Array then value.map { |element| _format_keys(element) }
      when ::Hash then value.to_h { |key, element| [_key(key), _format_keys(element)] }
      else value
      end
    end
  end
end
