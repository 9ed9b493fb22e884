# frozen_string_literal: true

module Jetson
  # ActiveSupport's JSON encoder for apps whose encoder was Oj's Rails encoder
  # (Oj.optimize_rails): Oj's Rails-mode bytes, written natively
  # (ext/jetson/rails/oj_mode.c), with Oj writing what is its own (objects'
  # as_json, Times, BigDecimals) and Oj's settings in force
  # (escape_html_entities_in_json, time_precision, Oj::Rails.optimize).
  # ActiveRecord records and relations are written from their attribute
  # sets, as their as_json makes them and Oj writes that. Calls whose
  # options Oj reads itself (indent: and Oj's other dump options, but for
  # only: and except:, whose key filter is applied where Oj applies it) and
  # Oj defaults that change its layout (Jetson::Rails::OjRules) go to Oj's
  # encoder. Installed by the Railtie
  # (`config.jetson.oj = :native`, the default) or by hand:
  #
  #   Oj.optimize_rails
  #   ActiveSupport.json_encoder = Jetson::OjEncoder
  #
  # Holds only its options and what they mean, settled when it is made and
  # never changed after, so one instance can be cached and shared between
  # threads, as ActiveSupport 8.1 does, and works frozen and Ractor-shareable,
  # as Rails main keeps its instances.
  class OjEncoder
    # @return [Hash] the options given to `to_json` / `as_json`
    attr_reader :options

    # @param options [Hash, nil] the top-level `as_json` options, as ActiveSupport passes them
    def initialize(options = nil)
      @options = options || {}
      @native_options = native_options?
    end

    # The JSON Oj's Rails encoder writes for value.
    # @param value [Object]
    # @return [String]
    def encode(value)
      flags = Rails::OjRules.flags
      # Oj's own encoder, made for the call: one an instance kept could not
      # be frozen with it or shared between Ractors.
      return ::Oj::Rails::Encoder.new(@options).encode(value) unless flags && @native_options

      settings = ::ActiveSupport::JSON::Encoding
      Jetson.rails_generate(value, @options, settings.escape_html_entities_in_json,
                            settings.use_standard_json_time_format, settings.time_precision, Rails::CLASSES,
                            Rails.active_model, flags, ::Oj::Rails)
    end

    private

    # Options Oj does not read (render json:'s escape: false, prefixes:,
    # template:) only reach as_json, as Oj hands them on. only: and except:
    # reach as_json too (a record's serializable_hash reads them), and Oj
    # filters the keys of the Hashes it walks outside as_json results with
    # them: the native walk hands such Hashes to Oj (oj_mode.c).
    KEY_FILTERS = %i[only except].freeze
    private_constant :KEY_FILTERS

    def native_options?
      @options.empty? || @options.keys.none? { |key| !KEY_FILTERS.include?(key) && Rails::OjRules.option?(key) }
    end
  end
end
