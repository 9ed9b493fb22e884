# frozen_string_literal: true

# What every minimal Rails application a test boots in a child Ruby sets
# first (the Railtie's, the Oj takeover's, Rails' defaults', the
# deprecations' and the jbuilder gem's tests): nothing eager-loaded (the
# app has no code of its own), no log, a fixed secret (there are no
# credentials). The test's own settings follow in the class body:
#
#   require "support/child_app"
#   class App < Rails::Application
#     ChildApp.configure(config)
#     config.jetson.rails_encoder = true
#   end
module ChildApp
  def self.configure(config)
    config.eager_load = false
    config.logger = Logger.new(nil)
    config.secret_key_base = "test"
  end
end
