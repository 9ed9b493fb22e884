# frozen_string_literal: true

module WidgetEngine
  # The engine's own builder outside views: a subclass of Jbuilder, loaded
  # by the autoloader when first named.
  class PriceBuilder < ::Jbuilder
    def self.summary(widgets)
      new(key_formatter: ::Jbuilder::KeyFormatter.new(camelize: :lower)) do |json|
        json.widget_count widgets.size
        json.total_cents widgets.sum(&:price_cents)
        json.heaviest_widget widgets.max_by(&:weight), :id, :name, :weight
      end.target!
    end
  end
end
