# frozen_string_literal: true

# The kit's engine (kit/README.md): a gem whose gemspec depends on the
# jbuilder gem and whose lib requires it, as engines that ship
# .json.jbuilder views do, so an app that mounts it has the jbuilder gem in
# its bundle whatever else it uses.
Gem::Specification.new do |spec|
  spec.name = "widget_engine"
  spec.version = "0.1.0"
  spec.authors = ["Jetson contributors"]
  spec.summary = "The kit's Rails engine with Jbuilder views (Jetson's tests)"
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1"
  spec.files = Dir["lib/**/*.rb", "app/**/*", "config/**/*.rb"]
  spec.add_dependency "jbuilder"
  spec.add_dependency "railties"
end
