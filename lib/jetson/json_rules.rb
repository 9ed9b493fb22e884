# frozen_string_literal: true

module Jetson
  # Which json gem's rules Jetson follows: 2 (json 2.x) or 3 (json 3.x).
  # Decided once, when Jetson is loaded, from the json the app has: the one
  # already loaded, else the one its bundle activated, else json 3 (what a
  # new app gets). Everything version-dependent reads this one value, in C
  # and in Ruby, so one process never mixes the two.
  JSON_RULES =
    if defined?(::JSON::VERSION) && ::JSON::VERSION.is_a?(String)
      ::JSON::VERSION.to_i >= 3 ? 3 : 2
    elsif defined?(::Gem) && (spec = ::Gem.loaded_specs["json"])
      spec.version.segments.first >= 3 ? 3 : 2
    else
      3
    end

  def self.json_rules
    JSON_RULES
  end
end
