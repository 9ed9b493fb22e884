# frozen_string_literal: true

# "Stock" in the Rails benches is the app's Rails: the JSON encoder
# ActiveSupport picks for itself (JSONGemCoderEncoder on 8.1 with json 2.15.2
# or newer, JSONGemEncoder before) under the JSON settings a new app of that
# version gets from `load_defaults` (8.1 stops escaping U+2028/U+2029).
# Required before anything can replace the encoder (Jetson::Rails.install!,
# Oj.optimize_rails), so the encoder read here is ActiveSupport's own.
require "active_support"
require "active_support/json"

module JetsonBench
  module RailsStock
    ENCODER = ActiveSupport.json_encoder
    if ENCODER.name.nil? || !ENCODER.name.start_with?("ActiveSupport::")
      raise "bench: ActiveSupport.json_encoder was already replaced (#{ENCODER.inspect}) when #{__FILE__} was loaded"
    end

    # The settings of ActiveSupport::JSON::Encoding that `load_defaults` sets.
    JSON_SETTINGS = %i[escape_js_separators_in_json escape_html_entities_in_json
                       use_standard_json_time_format time_precision].freeze

    module_function

    # "8.1" for ActiveSupport 8.1.x: the load_defaults of a new app.
    def version = "#{ActiveSupport::VERSION::MAJOR}.#{ActiveSupport::VERSION::MINOR}"

    # The JSON settings `config.load_defaults(version)` gives an app, read
    # from railties' own configuration (nothing listed here by hand).
    def json_defaults
      require "rails"
      config = ::Rails::Application::Configuration.new(Pathname(Dir.pwd))
      config.load_defaults(version)
      JSON_SETTINGS.filter_map { |name| [name, config.active_support[name]] if config.active_support.key?(name) }.to_h
    end

    # Applies json_defaults to ActiveSupport, for the benches without a
    # Rails app (records, rails); the views app calls load_defaults itself.
    def apply_json_defaults!
      json_defaults.each { |name, value| ActiveSupport::JSON::Encoding.public_send(:"#{name}=", value) }
    end

    def describe
      settings = json_defaults.map { |k, v| "#{k}=#{v.inspect}" }
      "ActiveSupport #{ActiveSupport.version}, stock encoder #{ENCODER.name}, " \
        "load_defaults #{version}#{settings.empty? ? '' : " (#{settings.join(', ')})"}"
    end
  end
end
