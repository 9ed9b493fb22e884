# frozen_string_literal: true

module Jetson
  DUMP_DEFAULT_OPTIONS = { max_nesting: false, allow_nan: true }.freeze
  private_constant :DUMP_DEFAULT_OPTIONS

  class << self
    # JSON.dump's contract: dump(obj), dump(obj, io), dump(obj, limit),
    # dump(obj, io, limit), and an options Hash in any trailing position.
    # With an io the document is streamed into it in chunks and the io returned.
    #
    # NaN and Infinity are allowed; the nesting limit is json's for the json
    # line Jetson follows (json 3: 100 unless `limit` is given, raising
    # {NestingError}; json 2: none unless given, raising ArgumentError).
    #
    # @example
    #   Jetson.dump({ "a" => 1 })             # => "{\"a\":1}"
    #   File.open("doc.json", "w") { |file| Jetson.dump(doc, file) }
    # @param obj [Object] the document
    # @param io [#write, #to_io, Integer, Hash, nil] where to stream it (or the limit, or the options)
    # @param limit [Integer, Hash, nil] the nesting limit (or the options)
    # @param opts [Hash, nil] options as for {Jetson.generate}
    # @return [String, IO] the JSON text, or the io
    def dump(obj, io = nil, limit = nil, opts = nil)
      if opts.nil?
        if limit.nil?
          if io.is_a?(Hash)
            opts = io
            io = nil
          end
        elsif limit.is_a?(Hash)
          opts = limit
          limit = nil
        end
      end

      unless io.nil?
        if io.respond_to?(:to_io)
          io = io.to_io
        elsif limit.nil? && !io.respond_to?(:write)
          io, limit = nil, io
        end
      end

      return dump_json3(obj, io, limit, opts) if JSON_RULES >= 3

      options = DUMP_DEFAULT_OPTIONS
      # Canonical JSON has no NaN (json 2 has no rfc8785; Jetson honours it).
      options = options.merge(allow_nan: false) if opts.is_a?(Hash) && opts[:rfc8785]
      options = options.merge(max_nesting: limit) if limit
      options = options.merge(opts) if opts

      begin
        State.generate(obj, options, io)
      rescue NestingError
        raise ArgumentError, "exceed depth limit"
      rescue StandardError => e
        # A to_json running the json gem's generator raises the json gem's error.
        raise unless defined?(::JSON::NestingError) && e.is_a?(::JSON::NestingError)

        raise ArgumentError, "exceed depth limit"
      end
    end

    private

    # json 3's dump: NaN allowed unless canonical JSON is asked for, the
    # ordinary nesting limit (100) unless one is given, and its errors as
    # they are (json 2 turned NestingError into ArgumentError).
    def dump_json3(obj, io, limit, opts)
      options = { allow_nan: !(opts && opts[:rfc8785]) }
      options[:max_nesting] = limit if limit
      options.merge!(opts) if opts
      State.generate(obj, options, io)
    end

    # Rails mode under json 3 (from the generator, at a Hash's first key of
    # another type): the error ActiveSupport's JSON.generate raises when keys
    # collide, or nil. Its message shows the Hash as ActiveSupport hands it
    # to the json gem, values through as_json, so that copy is made only here.
    # The keys are ActiveSupport's (other keys to_s, so 1 and "1" are one
    # key by then): the generator may ask with the Hash before that copy.
    def rails_duplicate_key_error(hash)
      seen = {}
      hash.each_key.map { |key| key.is_a?(String) || key.is_a?(Symbol) ? key : key.to_s }.uniq.each do |key|
        name = key.to_s
        return GeneratorError.new("detected duplicate key #{name.inspect} in #{rails_jsonify(hash).inspect}") if seen[name]

        seen[name] = true
      end
      nil
    end

    # ActiveSupport's conversion before the json gem: String and Symbol keys
    # kept, other keys to_s, values through as_json until they are JSON types.
    def rails_jsonify(value)
      case value
      when String, Integer, Symbol, nil, true, false then value
      when Numeric then value.as_json
      when Hash then value.each_with_object({}) { |(k, v), h| h[k.is_a?(String) || k.is_a?(Symbol) ? k : k.to_s] = rails_jsonify(v) }
      when Array then value.map { |v| rails_jsonify(v) }
      else rails_jsonify(value.as_json)
      end
    end

    # Called by the generator when a Hash mixes String and Symbol keys: the
    # json gem's duplicate-key check, with its messages.
    def on_mixed_keys_hash(hash, do_raise)
      seen = {}
      hash.each_key do |key|
        name = key.to_s
        if seen[name]
          message = "detected duplicate key #{name.inspect} in #{hash.inspect}"
          raise GeneratorError, message if do_raise

          warn("#{message}.\nThis will raise an error in json 3.0 unless enabled via `allow_duplicate_key: true`",
               uplevel: 2, category: :deprecated)
        else
          seen[name] = true
        end
      end
    end
  end
end
