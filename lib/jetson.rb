# frozen_string_literal: true

require_relative "jetson/version"

# Jetson: a fast JSON generator with the json gem's API and output bytes.
#
# `require "jetson"` defines this module and nothing else: {Jetson.generate},
# {Jetson.pretty_generate}, {Jetson.dump}, {State}, {Coder}, {Writer},
# {Fragment} and the errors. Rails mode is `require "jetson/rails"` ({RailsEncoder}),
# Jbuilder `require "jetson/jbuilder"` ({Builder}, `::Jbuilder`).
#
# @example
#   require "jetson"
#   Jetson.generate({ "id" => 1, "tags" => [:a, :b] })  # => "{\"id\":1,\"tags\":[\"a\",\"b\"]}"
module Jetson
  # Base of every error Jetson raises itself.
  class JSONError < StandardError; end

  # Raised when an object cannot be written as JSON (NaN without allow_nan,
  # invalid UTF-8, a type strict mode does not allow, ...).
  class GeneratorError < JSONError
    # @return [Object, nil] the object that could not be written
    attr_reader :invalid_object

    # @param message [String]
    # @param invalid_object [Object, nil] the object that could not be written
    def initialize(message, invalid_object = nil)
      super(message)
      @invalid_object = invalid_object
    end

    # The message, and the invalid object's `inspect` when there is one (as
    # the json gem's error shows it).
    # @return [String]
    def detailed_message(...)
      message = defined?(super) ? super : self.message
      @invalid_object.nil? ? message : "#{message}\nInvalid object: #{@invalid_object.inspect}"
    end
  end

  # Raised when a document nests deeper than max_nesting.
  class NestingError < JSONError; end

  # Raised when a Jetson::Writer is used out of order (a value without its
  # key, a key inside an array, a pop with nothing open, ...).
  class WriterError < JSONError; end

  # Raised by `require "jetson/rails"`, `"jetson/builder"` or `"jetson/jbuilder"`
  # when a gem they build on (activesupport, actionview) cannot be loaded; the
  # message names the gem to add to the Gemfile. A LoadError, so code that
  # rescues LoadError around an optional require keeps working.
  class MissingDependencyError < ::LoadError
    # @return [String] the gem to add ("activesupport", "actionview")
    attr_reader :gem_name

    # @param message [String]
    # @param gem_name [String] the gem that is missing
    # @param path [String] the feature that could not be required (`LoadError#path`)
    def initialize(message, gem_name:, path:)
      super(message)
      @gem_name = gem_name
      @path = path
    end
  end

  # Already-encoded JSON, pasted into the output as it is (never validated):
  # `Jetson.generate([Jetson::Fragment.new('{"cached":true}')])`. The json
  # gem's `JSON::Fragment` is pasted the same way.
  #
  # @!attribute [r] json
  #   @return [String] the JSON text
  Fragment = Struct.new(:json) do
    # @param json [String, #to_str] already-encoded JSON
    # @raise [TypeError] not a String
    def initialize(json)
      string = String.try_convert(json)
      raise TypeError, "no implicit conversion of #{json.class} into String" unless string

      super(string)
    end

    # @return [String] the JSON text, as it is
    def to_json(*)
      json
    end
  end
end

require_relative "jetson/json_rules"

module Jetson
  # Raised by `require "jetson"` when the C extension was never compiled for
  # the running Ruby: a checkout used as it is (`gem "jetson", path: ...`,
  # which Bundler does not compile) before `bundle exec rake compile`. The
  # message says what to run, and where.
  class ExtensionMissingError < ::LoadError; end

  # Loads the extension: JETSON_EXTENSION's build (`rake test:asan` points
  # it at its sanitizer build, and every child Ruby of the test run
  # inherits it); a checkout's build for this Ruby (`rake compile`, see the
  # Rakefile); an installed gem's (lib/jetson/jetson.so, or the gem's
  # extension directory on the load path, as Bundler builds a git source's).
  # @api private
  def self.load_extension
    if (extension = ENV["JETSON_EXTENSION"])
      return require File.expand_path(extension)
    end

    build = File.expand_path("jetson/#{RUBY_VERSION}", __dir__)
    return require File.join(build, "jetson") if File.directory?(build)

    begin
      require_relative "jetson/jetson"
    rescue ::LoadError
      begin
        require "jetson/jetson"
      rescue ::LoadError
        root = File.expand_path("..", __dir__)
        raise ExtensionMissingError,
              "Jetson's C extension is not compiled for Ruby #{RUBY_VERSION} in #{root}: run " \
              "`bundle exec rake compile` in #{root} (once per Ruby). Bundler does not compile a gem used from " \
              "a path (`gem \"jetson\", path: ...`); an installed gem compiles it when it is installed."
      end
    end
  end
  private_class_method :load_extension
end
Jetson.send(:load_extension)
require_relative "jetson/state"
require_relative "jetson/dump"
require_relative "jetson/coder"
require_relative "jetson/canonical"
