# frozen_string_literal: true

# The bundle and lib/ of a bench process, with nothing else loaded: the
# world processes start from it (each loads only its own view layer), and
# bench/support/setup.rb before Jetson and the helpers. Run the scripts
# through `bundle exec` from the repository root (a world inherits it).
begin
  require "bundler/setup" unless defined?(Bundler)
rescue LoadError
  nil
end
lib = File.expand_path("../../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
