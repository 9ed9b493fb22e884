# frozen_string_literal: true

require "rails"
require "active_record/railtie"
require "action_controller/railtie"
require "action_view/railtie"
require "logger"
require_relative "stock_encoder_json3"

module Kit
  # What the kit's in-process Rails apps (Kit::ViewsApp, Kit::StreamingApp)
  # have in common: an Application defined in code (no config/ directory,
  # no autoloading: each app requires its own Ruby files), one view layer
  # per process, and the check that the layer loaded is the one asked for.
  #
  # A process boots one world: the jbuilder gem and jetson/jbuilder both
  # define ::Jbuilder and JbuilderTemplate, and props_template and jb
  # prepend patches to ActionView's renderers that every template render
  # then goes through.
  module RailsApp
    # What each world requires after Rails, as Bundler.require would.
    WORLDS = {
      "jbuilder" => %w[jbuilder],
      "jetson" => %w[jetson/jbuilder],
      "props" => %w[props_template],
      "jb" => %w[jb]
    }.freeze

    module_function

    # Loads the world's view layer (and `also`, e.g. "jetson/rails").
    def require_world(world, also: [])
      WORLDS.fetch(world) { raise ArgumentError, "world: one of #{WORLDS.keys.join(', ')}" }.each { require _1 }
      also.each { require _1 }
    end

    # The app's Application class, as `parent::Application`. Options, each
    # where the apps differ:
    #   root, views           its directory and where its views are
    #   secret                secret_key_base
    #   load_defaults         the loaded Rails's defaults (false: the frameworks' own)
    #   eager_load            production's eager loading
    #   log                   where the logger writes (nil: nowhere), at :info as in production
    #   raise_errors          an error reaches the caller as raised, not as an error page
    #   caching               perform_caching, cached template lookups, :memory_store
    #   database_url          DATABASE_URL (no config/database.yml)
    #   oj_optimize_rails     Oj.optimize_rails in an initializer, as apps that keep Oj have it
    def define(parent, root:, views:, secret:, load_defaults: true, eager_load: false, log: nil, raise_errors: true,
               caching: true, database_url: "sqlite3::memory:", oj_optimize_rails: false)
      app = Class.new(::Rails::Application) do
        config.load_defaults "#{::Rails::VERSION::MAJOR}.#{::Rails::VERSION::MINOR}" if load_defaults
        config.root = root
        config.eager_load = eager_load
        config.enable_reloading = false
        config.consider_all_requests_local = false
        config.action_dispatch.show_exceptions = :none if raise_errors
        config.public_file_server.enabled = false # no file lookup per request (as behind a web server)
        if caching
          config.action_controller.perform_caching = true
          config.action_view.cache_template_loading = true
          config.cache_store = :memory_store
        end
        # At :info, as in production: a :debug logger makes ActionView's log
        # subscriber listen to render_partial.action_view, which sends every
        # partial through the instrumented path, and formats the render and
        # SQL events.
        config.logger = ::Logger.new(log, level: :info)
        config.log_level = :info
        config.secret_key_base = secret
        config.active_support.deprecation = :silence
        config.time_zone = "UTC"
        config.hosts.clear
        config.paths["app/views"] = views
        # No config/ directory, and the app's Ruby files are required by its
        # boot, not autoloaded (an app's directory may hold other Ruby).
        %w[config/routes.rb config/initializers config/environments app app/models app/controllers app/helpers
           app/mailers app/channels lib vendor].each { |p| config.paths[p] = [] }
        if oj_optimize_rails
          initializer("kit.oj_optimize_rails") do
            require "oj"
            Oj.optimize_rails
          end
        end
      end
      parent.const_set(:Application, app)
      ENV["DATABASE_URL"] = database_url
      app
    end

    # Initializes the app; ActiveSupport 8.0 under json 3 gets the same
    # repair in every world (Kit::StockEncoderJson3).
    def initialize!(app)
      app.initialize!
      StockEncoderJson3.repair_if_refused
      app
    end

    # Aborts unless JbuilderTemplate comes from the world asked for (a
    # world without Jbuilder has none to check).
    def check_world(name, world)
      return unless %w[jetson jbuilder].include?(world)

      origin = ::JbuilderTemplate.instance_method(:cache!).source_location.first
      return if origin.include?("/lib/jetson/") == (world == "jetson")

      abort "#{name}: JbuilderTemplate comes from #{origin}, not from the #{world} world"
    end
  end
end
