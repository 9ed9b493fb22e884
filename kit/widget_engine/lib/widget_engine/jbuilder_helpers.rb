# frozen_string_literal: true

module WidgetEngine
  # Calls the engine's views (and the host app's) make on `json`, added to
  # JbuilderTemplate when the engine's lib loads, as engines do: before the
  # app is initialized, and before Jetson when the engine comes first.
  module JbuilderHelpers
    # A price in cents as "12.34" and its currency. (Jbuilder is a
    # BasicObject: Kernel is named.)
    def price!(key, cents, currency = "EUR")
      set!(key) do
        set!(:amount, ::Kernel.format("%.2f", cents / 100.0))
        set!(:currency, currency)
      end
    end
  end
end

JbuilderTemplate.include(WidgetEngine::JbuilderHelpers)
