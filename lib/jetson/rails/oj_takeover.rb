# frozen_string_literal: true

module Jetson
  module Rails
    # Apps that call Oj.optimize_rails (in config/initializers) have Oj as
    # ActiveSupport's encoder, and every to_json and render json: goes to Oj.
    # An app that loads jetson/jbuilder or opts into Jetson::RailsEncoder
    # wants Jetson's speed: after the app's initializers, Jetson puts
    # Jetson::OjEncoder in Oj's encoder's place (`config.jetson.oj =
    # :native`, the default), which writes Oj's bytes natively, so nothing
    # the app sends changes. `:replace` takes over with ActiveSupport's own
    # bytes instead and says at boot which bytes change; `:keep` leaves Oj's
    # encoder in place (views still write Oj's bytes natively).
    module OjTakeover
      # Values whose bytes Oj's Rails mode writes otherwise than ActiveSupport
      # (found by encoding random documents both ways). The notice shows the
      # ones that differ in this app, encoded by both encoders at boot.
      EXAMPLES = {
        "a Float with 17 significant digits" => -> { 0.1 + 0.2 },
        "a small Float" => -> { 1.0e-7 },
        "U+2028 in a String" => -> { "a\u2028b" },
        "a Hash with both :id and \"id\" keys" => -> { { id: 1, "id" => 2 } }
      }.freeze

      # render json:'s own call where the app turned escape_json_responses
      # off (Rails 8.1's load_defaults): to_json(escape: false), which Oj's
      # Rails mode ignores (it escapes them all the same).
      RENDER_EXAMPLES = {
        "<, > and & in render json: (escape_json_responses off)" => -> { "<b>&</b>" }
      }.freeze

      module_function

      # Called once the app has initialized; returns the notice, or nil when
      # nothing was taken over.
      # @api private
      def after_initialize(app, wanted:)
        return unless wanted && oj_encoder?

        case app.config.jetson.oj
        when :keep then return
        when :native
          ::ActiveSupport.json_encoder = ::Jetson::OjEncoder
          return
        when :replace then nil
        else raise ArgumentError, "config.jetson.oj is :native, :replace or :keep, not #{app.config.jetson.oj.inspect}"
        end

        render = app.config.action_controller[:escape_json_responses] == false
        before = encode_examples(render: render)
        Jetson::Rails.install!
        notice = notice(before, encode_examples(render: render))
        ::Rails.logger&.warn(notice)
        warn(notice) # the logger may not reach the console at boot
        notice
      end

      # @api private
      def oj_encoder?
        defined?(::Oj::Rails::Encoder) && ActiveSupport.json_encoder.equal?(::Oj::Rails::Encoder)
      end

      # @api private
      # @param render [Boolean] whether render json: passes escape: false
      # @return [Hash{String => String}] each example encoded by the encoder in place
      def encode_examples(render: false)
        examples = EXAMPLES.transform_values { |value| [value, nil] }
        RENDER_EXAMPLES.each { |name, value| examples[name] = [value, { escape: false }] } if render
        examples.transform_values do |value, options|
          ActiveSupport::JSON.encode([value.call], options)
        rescue StandardError => e
          "raises #{e.class}"
        end
      end

      # @api private
      # @return [String] the boot notice: the examples whose bytes changed
      def notice(oj, jetson)
        changed = oj.keys.reject { |name| oj[name] == jetson[name] }
        lines = changed.map { |name| "  #{name}: Oj wrote #{oj[name]}, now #{jetson[name]}" }
        "Jetson: Oj.optimize_rails had made Oj ActiveSupport's JSON encoder; Jetson::RailsEncoder replaces it " \
          "(set config.jetson.oj = :keep to leave Oj in place). JSON responses are now ActiveSupport's own bytes" +
          (lines.empty? ? "." : ", which differ from Oj's here:\n#{lines.join("\n")}")
      end
    end
  end
end
