# frozen_string_literal: true

require "jetson/rails"
require_relative "../../kit/stock_encoder_json3"

# The oracle of Rails-mode tests: ActiveSupport's own encoder, the one the
# app would encode with (Jetson::Rails.reference_encoder), or the other one
# this ActiveSupport has.
#
# One exception, which the tests name: ActiveSupport 8.0's JSONGemEncoder
# calls `::JSON.generate(x, quirks_mode: true, max_nesting: false)`, and json
# 3 no longer takes quirks_mode (json 2 ignored it), so under json 3 that
# encoder raises ArgumentError on every call and has no bytes to compare
# with. There the oracle is that very encoder with its generating step
# making the same call without the keyword json 3 removed; everything else
# (as_json, the options, the escaping) is the gem's code.
module RailsOracle
  @shims = {}

  class << self
    # ActiveSupport's encoder back to the one it picked when it loaded, and
    # Jetson's reference encoder unset: the teardown of a test that set
    # either.
    def restore_encoders
      ActiveSupport.json_encoder = Jetson::Rails::EncodingRules.default_encoder
      Jetson::Rails.reference_encoder = nil
    end

    # Every encoder of ActiveSupport's this app could use, the default first.
    def reference_encoders
      rules = Jetson::Rails::EncodingRules
      [rules.default_encoder, rules.gem_encoder, rules.coder_encoder].compact.uniq
    end

    # The encoder that gives `encoder`'s bytes in this bundle.
    def stock(encoder = Jetson::Rails.reference_encoder)
      return encoder unless refuses_its_own_call?(encoder)

      @shims[encoder] ||= Class.new(encoder) do
        define_singleton_method(:name) { "#{encoder.name} (json 3: without quirks_mode)" }
        private def stringify(jsonified) = ::JSON.generate(jsonified, max_nesting: false)
      end
    end

    # ActiveSupport::JSON.encode(value) with `encoder` as ActiveSupport's
    # encoder for the call, then the bundle's stock one again.
    def encode_with(encoder, value)
      ActiveSupport.json_encoder = encoder
      ActiveSupport::JSON.encode(value)
    ensure
      ActiveSupport.json_encoder = stock
    end

    # Whether the json gem refuses the arguments the encoder passes it.
    def refuses_its_own_call?(encoder)
      Kit::StockEncoderJson3.refused? { encoder.new.encode(nil) }
    end
  end
end
