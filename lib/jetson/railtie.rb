# frozen_string_literal: true

module Jetson
  # Opt-in from a Rails app's configuration (config/application.rb):
  #
  #   require "jetson/rails"
  #   config.jetson.rails_encoder = true
  #
  # installs Jetson::RailsEncoder as ActiveSupport.json_encoder when the app
  # boots. Without the setting nothing changes. Jetson then writes the bytes
  # of the encoder it replaced (ActiveSupport 8.1's default
  # JSONGemCoderEncoder, or JSONGemEncoder), under every setting the app's
  # load_defaults sets: escape_js_separators_in_json,
  # escape_html_entities_in_json, use_standard_json_time_format,
  # time_precision, and render json:'s escape: false where
  # escape_json_responses is off (docs/rails.md, Settings).
  class Railtie < ::Rails::Railtie
    config.jetson = ActiveSupport::OrderedOptions.new
    config.jetson.rails_encoder = false
    # What to do when Oj.optimize_rails has made Oj ActiveSupport's encoder
    # in an app that uses Jetson (jetson/jbuilder or rails_encoder): :replace
    # (Jetson's encoder, with a boot notice of the bytes that change) or :keep.
    config.jetson.oj = :replace

    initializer "jetson.rails_encoder" do |app|
      Jetson::Rails.install! if app.config.jetson.rails_encoder
    end

    # After the app's own initializers, where apps call Oj.optimize_rails
    # (lib/jetson/rails/oj_takeover.rb).
    config.after_initialize do |app|
      require "jetson/rails/oj_takeover"
      wanted = app.config.jetson.rails_encoder || defined?(Jetson::Rails::JbuilderRailtie)
      Jetson::Rails::OjTakeover.after_initialize(app, wanted: wanted)
    end

    # `render json_stream:` (lib/jetson/rails/streaming.rb), in every
    # controller with renderers; it writes the app's encoder's bytes, so it
    # needs no setting.
    initializer "jetson.json_stream" do
      ActiveSupport.on_load(:action_controller) do
        require "jetson/rails/streaming"
        Jetson::Rails::Streaming.install
      end
    end
  end
end
