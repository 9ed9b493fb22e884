# frozen_string_literal: true

# `require "jetson/builder"`: Jetson::Builder (lib/jetson/builder/), on Rails
# mode, and in a Rails app Jetson::Railtie (`config.jetson`), as with
# jetson/rails. An entry point, above every layer it loads.
require "jetson/dependencies"
Jetson::Dependencies.load_gem("active_support", "jetson/builder", "Jbuilder's output is ActiveSupport's JSON encoding")
require "jetson/builder/builder"
Jetson::Dependencies.in_rails { require "jetson/railtie" }
