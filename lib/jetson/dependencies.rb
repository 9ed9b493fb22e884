# frozen_string_literal: true

require "jetson" unless defined?(::Jetson::MissingDependencyError)

module Jetson
  # The gems that jetson/rails, jetson/builder and jetson/jbuilder build on,
  # required so that a missing one raises MissingDependencyError, naming the
  # gem to add to the Gemfile, instead of a bare "cannot load such file".
  #
  # @api private
  module Dependencies
    # The gem that provides each feature the entry points require.
    GEMS = {
      "active_support" => "activesupport",
      "action_view" => "actionview"
    }.freeze

    # Runs `block` (an entry point's Rails half: its Railtie) now if Rails
    # is loaded, else when a Rails application is defined, if one ever is:
    # an entry point required before Rails (`rspec -r jetson/jbuilder`,
    # RUBYOPT, a helper's first line) still brings its Railtie, as Bundler's
    # order (Rails first) does. A Railtie defined then, before the app's own
    # configuration, runs its initializers with the rest.
    #
    # @yield the Rails half, run once
    # @return [void]
    def self.in_rails(&block)
      if defined?(::Rails::Railtie)
        yield
      else
        ::ActiveSupport.on_load(:before_configuration, run_once: true) { block.call }
      end
    end

    # Requires `feature` for `entry_point`; `purpose` says why it is needed.
    # A LoadError about `feature` itself becomes a MissingDependencyError;
    # one about anything else (a file the gem itself requires) is left as it
    # is.
    #
    # @param feature [String] what to require ("active_support")
    # @param entry_point [String] the require that needs it ("jetson/rails")
    # @param purpose [String] why, for the message
    # @return [Boolean] what `require` returned
    # @raise [MissingDependencyError] when `feature` cannot be loaded
    def self.load_gem(feature, entry_point, purpose)
      require feature
    rescue ::LoadError => e
      raise unless e.path == feature || (e.path.nil? && e.message.end_with?("-- #{feature}"))

      gem_name = GEMS.fetch(feature)
      raise MissingDependencyError.new(
        "#{entry_point} needs the #{gem_name} gem (#{purpose}), and it could not be loaded " \
        "(#{e.message}). Add `gem \"#{gem_name}\"` to the Gemfile (a Rails app has it through " \
        "`gem \"rails\"`), or `gem install #{gem_name}` outside Bundler.",
        gem_name: gem_name, path: feature
      )
    end
  end
end
