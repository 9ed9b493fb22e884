# frozen_string_literal: true

require_relative "lib/jetson/version"

Gem::Specification.new do |spec|
  spec.name = "jetson"
  spec.version = Jetson::VERSION
  spec.authors = ["Jetson contributors"]
  spec.summary = "Fast JSON output for Ruby: a json-compatible native generator"
  spec.description = "A C-extension JSON generator with the json gem's API and bytes, " \
                     "a streaming writer, a Jbuilder-compatible builder and Rails integration."
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1"
  # The scaffold generators' templates (lib/jetson/rails/generators/) end in .tt.
  spec.files = Dir["lib/**/*.rb", "lib/**/*.tt", "ext/**/*.{c,h,rb}", "README.md", "CHANGELOG.md", "LICENSE"]
  spec.require_paths = ["lib"]
  spec.extensions = ["ext/jetson/extconf.rb"]
end
