# frozen_string_literal: true

# `require "jetson/rails"`: Rails mode (lib/jetson/rails/: Jetson::Rails,
# Jetson::RailsEncoder) and, in a Rails app, Jetson::Railtie
# (`config.jetson`). An entry point sits above every layer it loads: the
# Railtie installs what the layers above Rails mode add to an app (`render
# json_stream:`), which Rails mode's own files may not require.
require "jetson/dependencies"
Jetson::Dependencies.load_gem("active_support", "jetson/rails", "Rails mode is ActiveSupport's JSON encoding")
require "jetson/rails/rails"
Jetson::Dependencies.in_rails { require "jetson/railtie" }
