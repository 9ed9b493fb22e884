# frozen_string_literal: true

module Jetson
  # The version of the json gem whose rules Jetson follows: the one already
  # loaded, else the one `require "json"` would load (the bundle's, or the
  # newest installed); nil when the app has no json gem at all.
  # Decided once, when Jetson is loaded.
  # @api private
  JSON_VERSION =
    begin
      if defined?(::JSON::VERSION) && ::JSON::VERSION.is_a?(String)
        ::JSON::VERSION.dup.freeze
      elsif defined?(::Gem)
        (::Gem.loaded_specs["json"] || ::Gem::Specification.find_by_name("json")).version.to_s.freeze
      end
    rescue ::LoadError # Gem::MissingSpecError: no json gem at all
      nil
    end

  # Which json gem's rules Jetson follows: 2 (json 2.x) or 3 (json 3.x), json
  # 3 where the app has no json gem (what a new app gets). Everything
  # version-dependent reads this one value, in C and in Ruby, so a process
  # never mixes the two.
  JSON_RULES = JSON_VERSION.nil? || JSON_VERSION.to_i >= 3 ? 3 : 2

  # How Floats come out: the json release whose float rules apply, of those
  # that changed them. "2.15" (json 2.15 and later, json 3, and where the app
  # has no json gem): Grisu2's digits, integers plain below 1e15; "2.12"
  # (2.12 to 2.14) and "2.11": Grisu2's digits with those releases' layouts;
  # "2.10" (every json before 2.11): Float#to_s. The C extension reads it
  # once, when it is loaded.
  JSON_FLOAT_RULES =
    if JSON_VERSION.nil?
      "2.15"
    else
      major, minor = JSON_VERSION.split(".").map(&:to_i)
      release = [major, minor || 0]
      if (release <=> [2, 15]) >= 0 then "2.15"
      elsif (release <=> [2, 12]) >= 0 then "2.12"
      elsif (release <=> [2, 11]) >= 0 then "2.11"
      else "2.10"
      end
    end

  # @return [Integer] {JSON_RULES}: 2 or 3, the json line whose rules Jetson follows
  def self.json_rules
    JSON_RULES
  end

  # @return [String] {JSON_FLOAT_RULES}: the json release whose Float output
  #   Jetson writes ("2.15", "2.12", "2.11", or "2.10" for Float#to_s's)
  def self.json_float_rules
    JSON_FLOAT_RULES
  end
end
