# frozen_string_literal: true

module Jetson
  # Which json gem's rules Jetson follows: 2 (json 2.x) or 3 (json 3.x).
  # Decided once, when Jetson is loaded, from the json the app has: the one
  # already loaded, else the one `require "json"` would load (the bundle's,
  # or the newest installed), else json 3 (what a new app gets). Everything
  # version-dependent reads this one value, in C and in Ruby, so a process
  # never mixes the two.
  JSON_RULES =
    begin
      version = if defined?(::JSON::VERSION) && ::JSON::VERSION.is_a?(String)
                  ::JSON::VERSION
                elsif defined?(::Gem)
                  (::Gem.loaded_specs["json"] || ::Gem::Specification.find_by_name("json")).version.to_s
                end
      version.nil? || version.to_i >= 3 ? 3 : 2
    rescue ::LoadError # Gem::MissingSpecError: no json gem at all
      3
    end

  # @return [Integer] {JSON_RULES}: 2 or 3, the json line whose rules Jetson follows
  def self.json_rules
    JSON_RULES
  end
end
