# frozen_string_literal: true

module Jetson
  module Rails
    # What the app's ActiveSupport encoder does where ActiveSupport's versions
    # and encoders differ, found once from the loaded gems (mostly by asking
    # their code, not their version), and the flags Jetson.rails_generate
    # takes for it (ext/jetson/rails/settings.h, JT_RAILS_FLAG_*).
    #
    # - the encoder: ActiveSupport 8.1 picks JSONGemCoderEncoder when the json
    #   gem has JSON::Coder (json 2.15.2 and later), else JSONGemEncoder;
    #   {Jetson::Rails.reference_encoder} is the one whose bytes
    #   {Jetson::RailsEncoder} writes;
    # - options handed to the top-level as_json: a copy (7.2), a frozen copy
    #   (8.0 and later), the Coder encoder's own frozen Hash without :escape;
    # - per-call `escape_html_entities:` (8.0 and later) and `escape: false`
    #   (8.1), the escape_js_separators_in_json setting (8.1);
    # - JSONGemEncoder 8.1 keeps a JSON::Fragment as it is (earlier versions
    #   call its as_json, a Struct's); 8.0 generates with max_nesting: false.
    #
    # @api private
    module EncodingRules
      FLAG_ESCAPE_JS = 1
      FLAG_CODER = 2
      FLAG_FRAGMENTS = 4
      FLAG_UNLIMITED_NESTING = 8
      FLAG_FROZEN_OPTIONS = 16

      # An object whose as_json reports the options it is given and stops the
      # encoder there (nothing is generated).
      class OptionsProbe
        attr_reader :seen

        def as_json(options = nil)
          @seen = options
          throw self
        end
      end

      class << self
        def settings
          ::ActiveSupport::JSON::Encoding
        end

        def gem_encoder
          settings::JSONGemEncoder
        end

        # JSONGemCoderEncoder where this ActiveSupport defines it (8.1 with a
        # json gem that has what it needs), else nil.
        def coder_encoder
          settings.const_defined?(:JSONGemCoderEncoder, false) ? settings::JSONGemCoderEncoder : nil
        end

        # The encoder ActiveSupport sets when it loads: its own rule, the
        # Coder encoder wherever it is defined.
        def default_encoder
          coder_encoder || gem_encoder
        end

        def stock_encoder?(encoder)
          encoder.equal?(gem_encoder) || (!coder_encoder.nil? && encoder.equal?(coder_encoder))
        end

        # The block of the Coder encoder's JSON::Coder, which Jetson calls
        # where that Coder would (its conversions are then the encoder's own).
        def coder_proc
          return @coder_proc if defined?(@coder_proc)

          coder = coder_encoder&.const_get(:CODER, false)
          state = coder&.instance_variable_get(:@state)
          @coder_proc = state.respond_to?(:as_json) && state.as_json.is_a?(Proc) ? state.as_json : nil
        end

        # Whether the setting exists (8.1); its value is read on every call.
        def js_separators_setting?
          return @js_separators_setting if defined?(@js_separators_setting)

          @js_separators_setting = settings.respond_to?(:escape_js_separators_in_json)
        end

        def escape_js?
          !js_separators_setting? || settings.escape_js_separators_in_json ? true : false
        end

        # JSONGemEncoder's top-level as_json gets its options frozen (8.0 and
        # later) rather than a plain copy (7.2); Hash#as_json and
        # Array#as_json of the same versions hand that frozen Hash on.
        def freezes_options?
          return @freezes_options if defined?(@freezes_options)

          probe = OptionsProbe.new
          catch(probe) { gem_encoder.new(probe: true).encode(probe) }
          @freezes_options = probe.seen.frozen?
        end

        # JSONGemEncoder honours a per-call escape_html_entities: (8.0 and
        # later): its escaping of a fixed text, with the option set against
        # the global setting.
        def per_call_escape_html?
          return @per_call_escape_html if defined?(@per_call_escape_html)

          wanted = !settings.escape_html_entities_in_json
          @per_call_escape_html = escaped_text(escape_html_entities: wanted).include?("\\u003c") == wanted
        end

        # JSONGemEncoder honours escape: false (8.1): nothing escaped at all.
        def escape_option?
          return @escape_option if defined?(@escape_option)

          @escape_option = !escaped_text(escape: false).include?("\\u2028")
        end

        # JSONGemEncoder 8.1 keeps a JSON::Fragment for the json gem to paste.
        def gem_keeps_fragments?
          return @gem_keeps_fragments if defined?(@gem_keeps_fragments)

          @gem_keeps_fragments = if defined?(::JSON::Fragment)
                                   fragment = ::JSON::Fragment.new("1")
                                   gem_encoder.new.send(:jsonify, fragment).equal?(fragment)
                                 else
                                   false
                                 end
        end

        # JSONGemEncoder generates without a nesting limit (8.0's
        # `max_nesting: false`): asked of its own generating method. Under a
        # json gem that refuses 8.0's other keyword (json 3 removed
        # quirks_mode, so 8.0's encoder raises ArgumentError on every call),
        # the call it makes is read from its version: 8.0 asks for no limit.
        def unlimited_nesting?
          return @unlimited_nesting if defined?(@unlimited_nesting)

          deep = (1..101).reduce([]) { |inner, _| [inner] }
          @unlimited_nesting = begin
            gem_encoder.new.send(:stringify, deep)
            true
          rescue ::JSON::NestingError
            false
          rescue ArgumentError
            version = ::ActiveSupport.gem_version
            version >= Gem::Version.new("8.0") && version < Gem::Version.new("8.1")
          end
        end

        # What one encoder instance's options mean under `encoder` (the
        # reference encoder), settled once per instance: [encoder, flags
        # without FLAG_ESCAPE_JS, the options its top-level as_json gets,
        # whether it escapes at all, its escape_html_entities: or nil].
        # ActiveSupport makes an encoder per call, so the answer for no
        # options (to_json, Jbuilder's target!) is kept per encoder.
        def instance_rules(encoder, options)
          return rules_for(encoder, options) unless options.empty?

          (@empty_rules ||= {})[encoder] ||= rules_for(encoder, {}.freeze)
        end

        # The flags of one call: an instance's, with escape_js_separators_in_json
        # of the moment where the call escapes at all; nil when the Coder
        # encoder's block cannot be found (a json gem that keeps it elsewhere
        # than 2.15 to 3.1 do), whose calls then go to that encoder itself.
        def call_flags(flags, escape = true)
          return if flags.anybits?(FLAG_CODER) && coder_proc.nil?

          escape && escape_js? ? flags | FLAG_ESCAPE_JS : flags
        end

        private

        def rules_for(encoder, options)
          coder = !coder_encoder.nil? && encoder.equal?(coder_encoder)
          escape = coder || escape_option? ? options.fetch(:escape, true) : true
          html = options.fetch(:escape_html_entities, nil) if coder || per_call_escape_html?
          if coder
            flags = FLAG_CODER | FLAG_FROZEN_OPTIONS
            as_json_options = options.except(:escape).freeze
          else
            flags = (gem_keeps_fragments? ? FLAG_FRAGMENTS : 0) | (unlimited_nesting? ? FLAG_UNLIMITED_NESTING : 0)
            as_json_options = options
            if freezes_options?
              flags |= FLAG_FROZEN_OPTIONS
              as_json_options = options.dup.freeze unless options.empty?
            end
          end
          [encoder, flags, as_json_options, escape ? true : false, html].freeze
        end

        # JSONGemEncoder's escaping of a fixed JSON text (its generating step
        # replaced, so that nothing else runs).
        def escaped_text(options)
          fixed = Class.new(gem_encoder) do
            private def stringify(_value) = +"\"<\u2028\""
          end
          fixed.new(options).encode(nil)
        end
      end
    end
  end
end
