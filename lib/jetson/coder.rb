# frozen_string_literal: true

module Jetson
  # The json gem's `JSON::Coder` (json 2.10 and later) for writing: a
  # configuration made once, then `dump` (or `generate`) any number of
  # times, with `JSON::Coder`'s bytes and errors.
  #
  # Its generation is strict mode's: Hashes, Arrays, Strings, Symbols,
  # Integers, Floats, nil, true and false are written natively, and anything
  # else is handed to the block, whose result is written in its place (a
  # value of another type raises {GeneratorError}). The block also gets NaN
  # and the Infinities (unless `allow_nan: true`), Strings that are not
  # UTF-8 and cannot be converted, and Hash keys that are not Strings or
  # Symbols; its second argument says whether the value is a key.
  #
  # The options are the json gem's: those of {Jetson.generate} (`strict:`
  # cannot be turned off), and the parser's (`symbolize_names:`,
  # `object_class:`, ...), accepted and ignored, as Jetson does not parse:
  # `JSON::Coder#load` has no counterpart here. Where json 2 and json 3
  # differ, Jetson follows the line the app has ({JSON_RULES}): json 3's
  # Coder takes keywords only and refuses `strict: false` and unknown
  # options; json 2's takes a Hash, turns `strict` on whatever it says and
  # ignores unknown options.
  #
  # A Coder holds a frozen {State}: one Coder is used by any number of
  # threads at once, and `Ractor.make_shareable(coder)` makes it shareable
  # where the block is (as `JSON::Coder`).
  #
  # @example
  #   API_CODER = Jetson::Coder.new(script_safe: true) do |object, is_key|
  #     case object
  #     when Time then object.utc.iso8601(3)
  #     else is_key ? object.to_s : object  # any other value raises
  #     end
  #   end
  #   API_CODER.dump({ at: Time.at(0) })  # => "{\"at\":\"1970-01-01T00:00:00.000Z\"}"
  #   File.open("out.json", "w") { |file| API_CODER.dump(doc, file) }
  class Coder
    # Options of the json gem's parser that are not also its generator's:
    # a Coder accepts them (and `object_class:`, `array_class:`, `on_load:`)
    # and leaves them aside.
    PARSER_ONLY_OPTIONS = %i[allow_trailing_comma allow_comments allow_control_characters allow_invalid_escape
                             symbolize_names freeze decimal_class].freeze
    private_constant :PARSER_ONLY_OPTIONS

    if JSON_RULES >= 3
      # A Coder with `options` and the block (json 3's Coder: keywords only).
      # @param object_class [Class, nil] the parser's (ignored)
      # @param array_class [Class, nil] the parser's (ignored)
      # @param on_load [Proc, nil] the parser's (ignored)
      # @param strict [true] strict mode, which a Coder always has
      # @param options [Hash{Symbol => Object}] the options of {Jetson.generate} (`as_json:` is
      #   the block's stand-in when there is no block), and the parser's, which are ignored
      # @yieldparam object [Object] a value JSON has no type for, NaN or an Infinity, a String
      #   that is not UTF-8, or a Hash key that is not a String or Symbol
      # @yieldparam is_key [Boolean] whether `object` is a Hash key
      # @yieldreturn [Object] what to write instead: a String for a key; any JSON type for a value
      # @raise [ArgumentError] `strict: false`, an unknown option
      # @raise [TypeError] an option of the wrong type
      def initialize(object_class: nil, array_class: nil, on_load: nil, strict: true, **options, &as_json)
        raise ArgumentError, "Jetson::Coder requires strict mode" unless strict

        options = options.reject { |name, _| PARSER_ONLY_OPTIONS.include?(name) }
        @state = State.new(options.merge!(strict: true, as_json: as_json || options[:as_json])).freeze
      end
    else
      # A Coder with `options` and the block (json 2's Coder: an options Hash).
      # @param options [Hash, nil] the options of {Jetson.generate} (`strict` is always turned
      #   on; `as_json:` is the block's stand-in when there is no block); others are ignored
      # @yieldparam object [Object] a value JSON has no type for, NaN or an Infinity, a String
      #   that is not UTF-8, or a Hash key that is not a String or Symbol
      # @yieldparam is_key [Boolean] whether `object` is a Hash key
      # @yieldreturn [Object] what to write instead: a String for a key; any JSON type for a value
      # @raise [TypeError] an option of the wrong type
      def initialize(options = nil, &as_json)
        if options.nil?
          options = { strict: true }
        else
          options = options.dup
          options[:strict] = true
        end
        options[:as_json] = as_json if as_json
        @state = State.new(options).freeze
      end
    end
  end
end
