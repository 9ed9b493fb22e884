# frozen_string_literal: true

module WidgetEngine
  # A widget of the engine's fixed catalogue (no database: the tests compare
  # the views' bytes, not ActiveRecord's). A plain object, as Jbuilder maps
  # over anything that responds to map.
  class Widget
    ATTRIBUTES = %i[id name price_cents tags weight released_at notes].freeze
    attr_reader(*ATTRIBUTES)

    def initialize(**values)
      ATTRIBUTES.each { |name| instance_variable_set(:"@#{name}", values.fetch(name)) }
    end

    def self.all
      CATALOGUE
    end

    def self.find(id)
      CATALOGUE.find { _1.id == Integer(id) } or raise ActionController::RoutingError, "no widget #{id}"
    end

    def cache_key_with_version
      "widget_engine/widgets/#{id}-#{released_at.to_i}"
    end

    CATALOGUE = [
      new(id: 1, name: "Sprocket", price_cents: 1250, tags: %w[metal small], weight: 0.125,
          released_at: Time.utc(2024, 5, 6, 7, 8, 9), notes: nil),
      new(id: 2, name: "Gear \"XL\" <b>&</b>", price_cents: 99_999, tags: [], weight: 12.5,
          released_at: Time.utc(2023, 1, 2, 3, 4, 5, 678_901), notes: "fragile\u2028handle"),
      new(id: 3, name: "Ünïcödé 🚀", price_cents: 0, tags: %w[new], weight: 1e-7,
          released_at: Time.utc(2025, 12, 31, 23, 59, 59), notes: "")
    ].freeze
  end
end
