# frozen_string_literal: true

module Jetson
  module Rails
    # Apps that call Oj.optimize_rails (in config/initializers) have Oj as
    # ActiveSupport's encoder, so Jetson's native writers would see a foreign
    # encoder and leave every view and to_json to Oj. An app that loads
    # jetson/jbuilder or opts into Jetson::RailsEncoder wants Jetson's speed:
    # after the app's initializers, Jetson takes ActiveSupport's encoder over
    # from Oj and says at boot which bytes change (ActiveSupport's own, not
    # Oj's). `config.jetson.oj = :keep` leaves Oj in place.
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

      module_function

      # Called once the app has initialized; returns the notice, or nil when
      # nothing was taken over.
      # @api private
      def after_initialize(app, wanted:)
        return unless wanted && oj_encoder?
        return if app.config.jetson.oj == :keep

        before = encode_examples
        Jetson::Rails.install!
        notice = notice(before, encode_examples)
        ::Rails.logger&.warn(notice)
        warn(notice) # the logger may not reach the console at boot
        notice
      end

      # @api private
      def oj_encoder?
        defined?(::Oj::Rails::Encoder) && ActiveSupport.json_encoder.equal?(::Oj::Rails::Encoder)
      end

      # @api private
      # @return [Hash{String => String}] each example encoded by the encoder in place
      def encode_examples
        EXAMPLES.transform_values do |value|
          ActiveSupport::JSON.encode([value.call])
        rescue StandardError => e
          "raises #{e.class}"
        end
      end

      # @api private
      # @return [String] the boot notice: the examples whose bytes changed
      def notice(oj, jetson)
        changed = EXAMPLES.keys.reject { |name| oj[name] == jetson[name] }
        lines = changed.map { |name| "  #{name}: Oj wrote #{oj[name]}, now #{jetson[name]}" }
        "Jetson: Oj.optimize_rails had made Oj ActiveSupport's JSON encoder; Jetson::RailsEncoder replaces it " \
          "(set config.jetson.oj = :keep to leave Oj in place). JSON responses are now ActiveSupport's own bytes" +
          (lines.empty? ? "." : ", which differ from Oj's here:\n#{lines.join("\n")}")
      end
    end
  end
end
