# frozen_string_literal: true

module Jetson
  module Rails
    # How much of this process's JSON took Jetson's native paths, and why
    # the rest did not: so that a team can check, in production, that its
    # processes get the speed (docs/rails.md, "Is production on the native
    # path?").
    #
    #   Jetson::Rails.diagnostics
    #   # => { records: { native: 24000, ruby: 0 }, values: { native: 120000, ruby: 200 },
    #   #      partials: { native: 2400, ruby: 0 }, calls: { native: 120, ruby: 0 },
    #   #      encoder: "Jetson::RailsEncoder", jbuilder_views: "Jetson", memo_asks: 31,
    #   #      fallbacks: [{ kind: :values, reason: :reader, subject: "Post", detail: "title", count: 200,
    #   #                    why: "Post#title is the app's own reader (app/models/post.rb:4)" }] }
    #   puts Jetson::Rails::Diagnostics.report
    #   Jetson::Rails::Diagnostics.reset!   # from now on
    #
    # The counts are kept natively, per Ractor (an app's are the main
    # Ractor's), from process start or the last reset!, by kind:
    # - records: ActiveRecord records written by Rails mode or extract!ed by
    #   a Jbuilder, read from their attribute set (native) or through their
    #   Ruby methods;
    # - values: those records' attribute values, taken from the attribute
    #   set or cast natively, or read through their reader;
    # - partials: Jbuilder partials and collection elements Jetson ran,
    #   against those ActionView's Template#render ran;
    # - calls: Rails-mode encodes Jetson wrote, against those it handed to
    #   ActiveSupport's own encoder.
    # A fallback that keeps happening once a process is warm (a "standing"
    # one) costs its speed on every request; one that happens only while it
    # boots does not. To tell them apart: reset! once the app is warm, then
    # read again. jbuilder_views says what renders .json.jbuilder views:
    # "Jetson" (jetson/jbuilder's handler), "the jbuilder gem" (its
    # handler: jetson/jbuilder was not loaded, or loaded after the app
    # booted), or nil (no :jbuilder handler, or no ActionView). memo_asks is the number of questions the native side sent
    # to Ruby about classes (plans, stock methods): it stops growing once a
    # process is warm.
    #
    # Defined in ext/jetson/rails/diagnostics.c: readings, reset!, and native and
    # fallback (what the Ruby side counts, partials and calls).
    module Diagnostics
      # What is counted, in the order of the snapshot and the report (see the
      # module's comment).
      KINDS = %i[records values partials calls].freeze

      class << self
        # This process's counts and fallbacks, each fallback with a sentence
        # that says why (see the module's comment).
        # @return [Hash]
        def snapshot
          native, ruby, fallbacks, dropped = readings
          result = KINDS.to_h { |kind| [kind, { native: native.fetch(kind), ruby: ruby.fetch(kind) }] }
          result[:encoder] = defined?(::ActiveSupport.json_encoder) ? ::ActiveSupport.json_encoder.name : nil
          result[:jbuilder_views] = jbuilder_views
          result[:memo_asks] = MethodWatch.asks
          result[:fallbacks] = fallbacks.map do |kind, reason, subject, detail, count|
            { kind: kind, reason: reason, subject: name_of(subject), detail: detail, count: count,
              why: explain(reason, subject, detail) }
          end
          result[:fallbacks_uncounted] = dropped
          result
        end

        # What renders .json.jbuilder views in this process: "Jetson", "the
        # jbuilder gem" (another :jbuilder handler), or nil (none).
        # @return [String, nil]
        def jbuilder_views
          handler = Rails.template_handler(:jbuilder)
          return nil unless handler

          jetson = defined?(::JbuilderHandler) && handler.equal?(::JbuilderHandler) && defined?(::Jetson::Builder) &&
                   defined?(::Jbuilder) && ::Jbuilder.is_a?(::Class) && ::Jbuilder < ::Jetson::Builder
          jetson ? "Jetson" : "the jbuilder gem"
        end

        # Whether nothing went through Ruby since the last reset!.
        # @return [Boolean]
        def all_native?
          readings[1].values.all?(&:zero?)
        end

        # The snapshot as lines for a log or a console.
        # @return [String]
        def report
          s = snapshot
          lines = ["Jetson diagnostics (pid #{::Process.pid}, encoder #{s[:encoder] || 'none'}" \
                   "#{", .json.jbuilder views by #{s[:jbuilder_views]}" if s[:jbuilder_views]}):"]
          KINDS.each do |kind|
            lines << format("  %-9s %10d native  %8d through Ruby", kind, s[kind][:native], s[kind][:ruby])
          end
          s[:fallbacks].sort_by { -_1[:count] }.each do |f|
            lines << "  #{f[:count]} #{f[:kind]}: #{f[:why]}"
          end
          lines << "  (#{s[:fallbacks_uncounted]} more fallbacks of other reasons)" if s[:fallbacks_uncounted].positive?
          lines.join("\n")
        end

        # The sentence for one fallback: reason, the class (or nil) and the
        # attribute or partial concerned (or nil).
        # @api private
        def explain(reason, subject, detail)
          name = name_of(subject)
          attribute = detail ? "#{name}##{detail}" : name
          case reason
          when :no_plan then RecordPlan.why_not(subject) || "#{name} had no plan when it was written"
          when :attribute_set
            "ActiveModel::LazyAttributeSet's keys, fetch_value or [] (or ActiveRecord::Result::IndexedRow's " \
              "methods) are not ActiveModel's and ActiveRecord's own"
          when :not_loaded then "#{name} records not loaded from the database (new, or built in Ruby)"
          when :raw_values then "#{name} records whose raw values are neither a Hash nor an IndexedRow"
          when :types then "#{name} records whose attribute types no plan could be made for"
          when :too_many_attributes then "#{name} records with more than 64 attributes"
          when :attribute_class then "#{name} records holding an attribute class with its own value or initialized?"
          when :layout then "#{name} records with an attribute name or default Jetson does not read"
          when :serialization then serialization(subject)
          when :root then "#{name}.include_root_in_json is on"
          when :as_json then "#{name}#as_json is the model's own (Oj's encoder calls it)"
          when :oj_optimized then "Oj::Rails.optimize names #{name}: Oj writes its records itself"
          when :name_clash then "methods: or include: names #{detail.inspect}, also an attribute of #{name}"
          when :reader then "#{attribute} is not ActiveRecord's generated reader (#{reader_location(subject, detail)})"
          when :primary_key then "#{attribute} does not read the primary key the model's plan names"
          when :cast then "#{attribute}'s type (#{type_name(subject, detail)}) is cast by its reader"
          when :uncast then "#{attribute} was built in Ruby (assigned or read before type cast) and not cast yet"
          when :default then "#{attribute} has no database value (a declared attribute): its reader gives the default"
          when :changed then "Ruby code replaced #{name}'s attributes while the record was written"
          when :private_reader then "#{attribute} is private (extract! calls it with public_send)"
          when :listener then "#{detail}: #{listeners('!render_template.action_view')} listen to " \
                              "!render_template.action_view, owed by a partial the Ruby renderer runs"
          when :strict_locals then "#{detail} declares strict locals"
          when :handler then "#{detail} is not a .jbuilder template"
          when :cache_miss then "#{detail}: a cached collection's misses, rendered one at a time for their JSON"
          when :view then "#{detail}: the view class renders templates its own way"
          when :coder_block then "JSON::Coder's block of ActiveSupport's JSONGemCoderEncoder was not found"
          else reason.to_s
          end
        end

        private

        def name_of(subject)
          return nil if subject.nil?

          subject.is_a?(::Module) ? (subject.name || subject.inspect) : subject.to_s
        end

        def serialization(klass)
          unless defined?(::ActiveRecord::Base) && klass.is_a?(::Class) && klass < ::ActiveRecord::Base
            return "#{name_of(klass)} is not an ActiveRecord model: its own serializable_hash runs"
          end

          method = klass.instance_method(:serializable_hash)
          "#{name_of(klass)}#serializable_hash, or a method it builds on, is not ActiveRecord's " \
            "(serializable_hash: #{location(method)})"
        rescue ::NameError
          "#{name_of(klass)}'s serialization is not ActiveRecord's"
        end

        def reader_location(klass, name)
          location(klass.instance_method(name))
        rescue ::NameError, ::TypeError
          "not defined"
        end

        def location(method)
          file, line = method.source_location
          file ? "#{file}:#{line}" : "#{method.owner.inspect}, in C"
        end

        def type_name(klass, name)
          klass.type_for_attribute(name).class.name
        rescue ::StandardError
          "unknown"
        end

        def listeners(event)
          found = ::ActiveSupport::Notifications.notifier.listeners_for(event).map do |listener|
            delegate = listener.instance_variable_get(:@delegate)
            (delegate || listener).class.name
          end.uniq
          found.empty? ? "listeners" : found.join(", ")
        rescue ::StandardError
          "listeners"
        end
      end
    end

    # {Diagnostics.snapshot}: how much of this process's JSON took the
    # native paths, and why the rest did not.
    # @return [Hash]
    def self.diagnostics
      Diagnostics.snapshot
    end
  end
end
