# frozen_string_literal: true

require_relative "jetson/version"

# Jetson: a fast JSON generator with the json gem's API and output bytes.
module Jetson
  # Base of every error Jetson raises itself.
  class JSONError < StandardError; end

  # Raised when an object cannot be written as JSON (NaN without allow_nan,
  # invalid UTF-8, a type strict mode does not allow, ...).
  class GeneratorError < JSONError
    attr_reader :invalid_object

    def initialize(message, invalid_object = nil)
      super(message)
      @invalid_object = invalid_object
    end

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
    # @param path [String] the feature that could not be required ({LoadError#path})
    def initialize(message, gem_name:, path:)
      super(message)
      @gem_name = gem_name
      @path = path
    end
  end

  # Already-encoded JSON, pasted into the output as it is (never validated).
  Fragment = Struct.new(:json) do
    def initialize(json)
      string = String.try_convert(json)
      raise TypeError, "no implicit conversion of #{json.class} into String" unless string

      super(string)
    end

    def to_json(*)
      json
    end
  end
end

require_relative "jetson/json_rules"
# JETSON_EXTENSION loads another build of the extension instead of the
# bundled one: `rake test:asan` points it at its sanitizer build, and every
# child Ruby of the test run inherits it.
if (extension = ENV["JETSON_EXTENSION"])
  require File.expand_path(extension)
else
  require_relative "jetson/jetson"
end
require_relative "jetson/state"
require_relative "jetson/dump"
require_relative "jetson/canonical"
