# frozen_string_literal: true

require "jetson/rails/rails"

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
  #
  # It is loaded by the entry points (jetson/rails, jetson/builder,
  # jetson/jbuilder) in a Rails app and sits on top of lib/jetson's layers:
  # what it installs comes from any of them (Rails mode, its Oj takeover,
  # `render json_stream:`), each loaded when the app needs it.
  class Railtie < ::Rails::Railtie
    config.jetson = ActiveSupport::OrderedOptions.new
    config.jetson.rails_encoder = false
    # What to do when Oj.optimize_rails has made Oj ActiveSupport's encoder
    # in an app that uses Jetson (jetson/jbuilder or rails_encoder): :native
    # (Jetson::OjEncoder: Oj's bytes, written natively), :replace
    # (Jetson::RailsEncoder: ActiveSupport's bytes, with a boot notice of the
    # bytes that change) or :keep (Oj's encoder stays; views still write
    # Oj's bytes natively).
    config.jetson.oj = :native

    initializer "jetson.rails_encoder" do |app|
      Jetson::Rails.install! if app.config.jetson.rails_encoder
    end

    # After the app's own initializers, where apps call Oj.optimize_rails
    # (lib/jetson/rails/oj_takeover.rb).
    config.after_initialize do |app|
      require "jetson/rails/oj_takeover"
      wanted = app.config.jetson.rails_encoder || defined?(Jetson::Views::Railtie)
      Jetson::Rails::OjTakeover.after_initialize(app, wanted: wanted)
    end

    # One line in the boot's log says what renders .json.jbuilder views,
    # once ActionView has loaded (its handlers are registered then): an app
    # whose bundle has the jbuilder gem and that never loaded
    # jetson/jbuilder sees that its views are not on Jetson
    # (Jetson::Rails.diagnostics[:jbuilder_views] says the same).
    config.after_initialize do
      ActiveSupport.on_load(:action_view) do
        views = Jetson::Rails::Diagnostics.jbuilder_views
        if views == "Jetson"
          ::Rails.logger&.info("Jetson: .json.jbuilder views render through Jetson")
        elsif views
          ::Rails.logger&.info("Jetson: .json.jbuilder views render through #{views}; " \
                               "`require \"jetson/jbuilder\"` (or require: \"jetson/jbuilder\" in the Gemfile) " \
                               "renders them with Jetson")
        end
      end
    end

    # `render json_stream:` (lib/jetson/streaming/), in every controller
    # with renderers; it writes the app's encoder's bytes, or with partial:
    # the views' (jetson/jbuilder's or the jbuilder gem's), so it needs no
    # setting. Here, on top, because streaming sits above Rails mode and the
    # views.
    initializer "jetson.json_stream" do
      ActiveSupport.on_load(:action_controller) do
        require "jetson/streaming/streaming"
        Jetson::Streaming.install
      end
    end
  end
end
