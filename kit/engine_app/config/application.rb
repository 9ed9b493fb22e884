# frozen_string_literal: true

# The kit's host app (kit/engine_app.rb): mounts WidgetEngine, as an app
# mounts an engine that depends on the jbuilder gem. How its gems load is
# the variant under test:
#   KIT_BUNDLER_REQUIRE=1   Bundler.require, in the Gemfile's order (what a
#                           generated app's config/application.rb does)
#   KIT_REQUIRES=a,b        no Bundler.require: these features, in this order
#                           (an engine's dummy app, a script, a test helper)
require "bundler/setup"
require "rails"
require "action_controller/railtie"
require "action_view/railtie"

if ENV["KIT_BUNDLER_REQUIRE"] == "1"
  Bundler.require(*Rails.groups)
else
  ENV.fetch("KIT_REQUIRES").split(",").each { |feature| require feature }
end

module EngineApp
  # The host app: production's eager loading and caching.
  class Application < Rails::Application
    config.load_defaults "#{Rails::VERSION::MAJOR}.#{Rails::VERSION::MINOR}"
    config.root = File.expand_path("..", __dir__)
    config.eager_load = true
    config.enable_reloading = false
    config.consider_all_requests_local = false
    config.action_dispatch.show_exceptions = :none
    config.action_controller.perform_caching = true
    config.cache_store = :memory_store
    config.logger = Logger.new(ENV["KIT_LOG"] || File::NULL, level: :info)
    config.secret_key_base = "kit-engine-app"
    config.hosts.clear
  end
end
