# frozen_string_literal: true

module Kit
  # The apps of the views, scaffold and streaming tests on ActiveSupport 8.0
  # under json 3.
  #
  # ActiveSupport 8.0's JSONGemEncoder generates with
  # `::JSON.generate(x, quirks_mode: true, max_nesting: false)` and its
  # JSON.decode parses with `::JSON.parse(json, quirks_mode: true)`; json 2
  # ignored quirks_mode, json 3 refuses it, so in that bundle every to_json
  # and every JSON request body raises ArgumentError: the jbuilder gem renders
  # nothing to compare with, and a view's own `to_json` raises in either
  # world. There both worlds get the same repair: the two calls are made
  # without the keyword json 3 removed (as_json, the options, the escaping
  # and the time conversion stay the gem's own code, and the encoder stays
  # the class ActiveSupport set, so what Jetson decides from it is
  # unchanged). Elsewhere (7.2, 8.1, json 2) it changes nothing.
  module StockEncoderJson3
    # JSONGemEncoder#stringify without quirks_mode.
    module WithoutQuirksMode
      private

      def stringify(jsonified)
        ::JSON.generate(jsonified, max_nesting: false)
      end
    end

    # ActiveSupport::JSON.decode without quirks_mode.
    module DecodeWithoutQuirksMode
      def decode(json)
        data = ::JSON.parse(json)
        ActiveSupport.parse_json_times ? convert_dates_from(data) : data
      end
    end

    class << self
      # Repairs ActiveSupport's JSONGemEncoder and JSON.decode where they
      # refuse their own calls; returns whether it did.
      def repair_if_refused
        encoder = ActiveSupport::JSON::Encoding::JSONGemEncoder
        repaired = false
        if !(encoder <= WithoutQuirksMode) && refused? { encoder.new.encode(nil) }
          encoder.prepend(WithoutQuirksMode)
          repaired = true
        end
        decoder = ActiveSupport::JSON.singleton_class
        if !(decoder <= DecodeWithoutQuirksMode) && refused? { ActiveSupport::JSON.decode("1") }
          decoder.prepend(DecodeWithoutQuirksMode)
          repaired = true
        end
        repaired
      end

      def refused?
        yield
        false
      rescue ArgumentError => e
        raise unless e.message.include?("quirks_mode")

        true
      end
    end
  end
end
