# frozen_string_literal: true

module Jetson
  # Generation options, with the json gem's names, defaults and behaviour.
  # The accessors and #generate are native (ext/jetson/json/state.c).
  class State
    # Used for `sort_keys: true`, as in the json gem.
    DEFAULT_SORT_KEYS = Ractor.make_shareable(->(hash) { hash.sort.to_h })

    # A State for `opts`, as JSON::State.from_state: `opts` itself when it is
    # a State, a new one configured by it when it is a Hash, else a new
    # default one.
    # @param opts [State, Hash, Object]
    # @return [State]
    def self.from_state(opts)
      case opts
      when self then opts
      when Hash then new(opts)
      else new
      end
    end

    # @param opts [Hash, nil] the options of {Jetson.generate}
    # @raise [ArgumentError] an unknown option under json 3's rules
    def initialize(opts = nil)
      configure(opts) if opts && !opts.empty?
    end

    # Applies an options Hash (or anything with to_hash / to_h) and returns self.
    # Also called `merge`.
    # @param opts [Hash, #to_hash, #to_h]
    # @return [self]
    # @raise [TypeError] not convertible to a Hash
    def configure(opts)
      unless opts.is_a?(Hash)
        opts = if opts.respond_to?(:to_hash) then opts.to_hash
               elsif opts.respond_to?(:to_h) then opts.to_h
               else raise TypeError, "can't convert #{opts.class} into Hash"
               end
      end
      _configure(opts)
    end
    alias merge configure

    # The options as a Hash, as JSON::State#to_h gives them (instance
    # variables set on the State included).
    # @return [Hash{Symbol => Object}]
    def to_h
      result = {
        indent: indent,
        space: space,
        space_before: space_before,
        object_nl: object_nl,
        array_nl: array_nl,
        as_json: as_json,
        allow_nan: allow_nan?,
        ascii_only: ascii_only?,
        max_nesting: max_nesting,
        script_safe: script_safe?,
        strict: strict?,
        depth: depth,
        buffer_initial_length: buffer_initial_length,
        sort_keys: sort_keys
      }
      result[:rfc8785] = rfc8785? if JSON_RULES >= 3 || rfc8785?
      duplicate_key = allow_duplicate_key?
      result[:allow_duplicate_key] = duplicate_key unless duplicate_key.nil?
      instance_variables.each { |ivar| result[ivar.to_s.delete_prefix("@").to_sym] = instance_variable_get(ivar) }
      result
    end
    alias to_hash to_h

    # Deprecated in json 2 and removed in json 3: defined under json 2's rules only.
    if JSON_RULES < 3
      # The option `name` (json 2's rules only; deprecated there, removed in json 3).
      # @deprecated Use the accessor ({#indent}, ...)
      def [](name)
        warn("Jetson::State#[] is deprecated and will be removed in json 3.0.0", uplevel: 1, category: :deprecated)
        if respond_to?(name)
          __send__(name)
        elsif instance_variables.include?(:"@#{name}")
          instance_variable_get(:"@#{name}")
        end
      end

      # Sets the option `name` (json 2's rules only; deprecated there, removed in json 3).
      # @deprecated Use the writer ({#indent=}, ...)
      def []=(name, value)
        warn("Jetson::State#[]= is deprecated and will be removed in json 3.0.0", uplevel: 1, category: :deprecated)
        if respond_to?(writer = :"#{name}=")
          __send__(writer, value)
        else
          instance_variable_set(:"@#{name}", value)
        end
      end
    end
  end
end
