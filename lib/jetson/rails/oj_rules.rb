# frozen_string_literal: true

module Jetson
  module Rails
    # Oj's Rails encoder (Oj.optimize_rails) as Jetson's native writers write
    # it (ext/jetson/rails/oj_mode.c): whether it is the app's encoder, and
    # what decides its bytes beyond ActiveSupport's settings, found by
    # encoding probes with Oj itself:
    #
    # - Oj::Rails.optimize's switches for Hash, Array and Float (which Oj
    #   keeps in its C globals and Oj::Rails.optimized? does not report): a
    #   Hash or Array it does not optimize goes to as_json, a Float it does
    #   not optimize is written by Float#to_s; and for Time and
    #   TimeWithZone, whose text Jetson writes where Oj writes it itself;
    # - Oj's default options: where they change Oj's Rails-mode layout or
    #   scalars (indent, omit_nil, integer_range, omit_null_byte, the dump
    #   layout strings, circular), Jetson leaves the encoding to Oj.
    #
    # The answer is kept until Oj's switches or defaults are set again
    # (Oj.default_options=, Oj.optimize_rails, Oj::Rails.optimize,
    # deoptimize and set_encoder, watched by a module prepended to their
    # singleton classes). Safe under threads: the answer is one frozen Array
    # read and written whole, tagged with the generation it was probed in; a
    # change while it is probed leaves it stale, so it is probed again.
    #
    # @api private
    module OjRules
      FLAG_OJ = 32
      FLAG_HASHES = 64
      FLAG_ARRAYS = 128
      FLAG_FLOATS = 256
      FLAG_TIMES = 512
      FLAG_ZONED_TIMES = 1024

      # as_json says whether Oj asked it (optimize off) or walked the
      # container itself (optimize on).
      class HashProbe < ::Hash
        def as_json(*) = "as_json"
      end

      class ArrayProbe < ::Array
        def as_json(*) = "as_json"
      end

      # Oj's defaults show in this document's text where they change what
      # Jetson writes natively: layout (indent, space, nl strings), a nil
      # value dropped (omit_nil), a large Integer as a String
      # (integer_range), a NUL dropped (omit_null_byte).
      NEUTRAL_SAMPLE = { "a" => [1, nil, -(2**62), "x\u0000"], "b" => { "c" => nil } }.freeze
      NEUTRAL_TEXT = '{"a":[1,null,-4611686018427387904,"x\\u0000"],"b":{"c":null}}'

      WATCHED = { "Oj" => %i[default_options= optimize_rails], "Oj::Rails" => %i[optimize deoptimize set_encoder] }.freeze

      @generation = 0
      @rules = nil
      @watch_lock = Mutex.new
      @watching = false
      @option_names = nil

      class << self
        # Whether encoder writes Oj's Rails-mode bytes: Oj's own encoder, or
        # Jetson::OjEncoder in its place.
        def encoder?(encoder)
          return false unless defined?(::Oj::Rails::Encoder)

          encoder.equal?(::Oj::Rails::Encoder) || encoder.equal?(::Jetson::OjEncoder)
        end

        # The flags of Jetson.rails_generate and the Builder's writers for
        # Oj's Rails encoder, or nil where Oj's defaults make bytes Jetson
        # does not write (Oj then encodes).
        def flags
          rules = @rules
          return rules[1] if rules && rules[0] == @generation

          watch!
          rules = [@generation, probe].freeze
          @rules = rules
          rules[1]
        end

        # Whether an encoder option is one Oj reads itself (its default
        # options' names: only:, except:, indent:, mode: ...), so that Oj
        # must encode that call.
        def option?(key)
          names = @option_names ||= ::Oj.default_options.keys.freeze
          names.include?(key)
        end

        # Called when Oj's switches or defaults are set.
        def changed!
          @generation += 1
        end

        private

        def probe
          return nil unless ::Oj::Rails.encode(NEUTRAL_SAMPLE) == NEUTRAL_TEXT
          return nil if ::Oj.default_options[:circular]

          flags = FLAG_OJ
          flags |= FLAG_HASHES if ::Oj::Rails.encode(HashProbe.new) == "{}"
          flags |= FLAG_ARRAYS if ::Oj::Rails.encode(ArrayProbe.new) == "[]"
          flags |= FLAG_FLOATS if ::Oj::Rails.encode(0.1 + 0.2) == "0.3"
          flags | time_flags
        end

        # Oj writes the Times of the classes it optimizes itself, with its
        # own precision, which Oj's time_precision= keeps equal to
        # ActiveSupport's (Oj.default_options= may set it apart).
        def time_flags
          return 0 unless ::Oj.default_options[:second_precision] == ::ActiveSupport::JSON::Encoding.time_precision

          flags = 0
          flags |= FLAG_TIMES if ::Oj::Rails.optimized?(::Time)
          flags |= FLAG_ZONED_TIMES if ::Oj::Rails.optimized?(::ActiveSupport::TimeWithZone)
          flags
        end

        def watch!
          return if @watching

          @watch_lock.synchronize do
            return if @watching

            WATCHED.each do |name, methods|
              Object.const_get(name).singleton_class.prepend(watcher(methods))
            end
            @watching = true
          end
        end

        def watcher(methods)
          Module.new do
            methods.each do |method|
              define_method(method) do |*args, &block|
                result = super(*args, &block)
                OjRules.changed!
                result
              end
            end
          end
        end
      end
    end
  end
end
