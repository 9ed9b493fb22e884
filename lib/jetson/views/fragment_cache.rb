# frozen_string_literal: true

require "active_support/cache"
require "jetson/rails/record_cache_keys"

module Jetson
  module Views
    # Fragment caching for Jbuilder views, with the fragment's JSON text as
    # the cached value: `cache!` blocks and `cached:` collections of
    # JbuilderTemplate.
    #
    # The jbuilder gem caches the Ruby Hash a block built: a hit unmarshals
    # the whole Hash, merges it and encodes it again with the rest of the
    # document. Jetson caches one String per entry (read with read_multi for
    # collections) and pastes it into the document on a hit, checked but
    # not decoded.
    #
    # Keys are the jbuilder gem's (the instrumented read_fragment and
    # write_fragment keys are the same), but the entries live in a namespace
    # of their own within the store: `jetson:1:hs3` after the store's own
    # namespace, if any. An app moving from the jbuilder gem never reads one
    # of its Hashes as JSON text, and the namespace also names the
    # ActiveSupport settings the text was written with (HTML entities
    # escaped, standard time format, time precision; and the JSON encoder
    # when it is neither ActiveSupport's nor Jetson's), so changing them
    # does not serve text written under others. cache_root! keeps the
    # jbuilder gem's keys: it caches the document's JSON text there too.
    #
    # @api private
    class FragmentCache
      # The layout of the cached text; a new one changes the namespace.
      FORMAT = 1

      # ActiveSupport's own encoders (8.1's JSONGemCoderEncoder too) and
      # Jetson's, which writes the bytes of one of them.
      NATIVE_ENCODERS = %w[ActiveSupport::JSON::Encoding::JSONGemEncoder ActiveSupport::JSON::Encoding::JSONGemCoderEncoder
                           Jetson::RailsEncoder].freeze

      # An ActiveRecord record in a cache! key, as ActiveSupport's
      # expand_cache_key asks it (cache_key_with_version first), answered by
      # RecordCacheKeys.
      class RecordKey
        attr_reader :cache_key_with_version

        def initialize(cache_key, cache_version)
          @cache_key_with_version = "#{cache_key}-#{cache_version}"
        end
      end

      # The namespace of Jetson's JSON fragments under the settings of the
      # moment (see the class's comment).
      def self.jetson_namespace
        settings = ::ActiveSupport::JSON::Encoding
        name = +"jetson:#{FORMAT}:"
        name << (settings.escape_html_entities_in_json ? "h" : "n")
        name << (settings.use_standard_json_time_format ? "s" : "l")
        name << settings.time_precision.to_s
        name << "x" if Jetson::Rails.js_separators_unescaped? # ActiveSupport 8.1's setting, off
        encoder = ::ActiveSupport.json_encoder
        if Jetson::Rails::OjRules.encoder?(encoder)
          # Oj's bytes, whether Oj or Jetson::OjEncoder writes them; Oj's
          # switches change them (Floats, Hashes, Arrays).
          name << ":oj" << Jetson::Rails::OjRules.flags.to_s
        elsif !NATIVE_ENCODERS.include?(encoder.name)
          name << ":" << encoder.name.to_s
        end
        name
      end

      def initialize(view)
        @view = view
        @records = nil
      end

      # The key of a cache! block, as the jbuilder gem makes it: the
      # template's digest, the controller's fragment cache keys, under
      # "jbuilder/". Records in it (itself, or in Arrays) give the key and
      # version ActiveRecord gives, made by RecordCacheKeys (once per render
      # for what is the class's).
      def key(key, options)
        key = with_record_keys(key)
        name_options = options.slice(:skip_digest, :virtual_path)
        key = @view.cache_fragment_name(key, **name_options) if @view.respond_to?(:cache_fragment_name)
        if @view.respond_to?(:combined_fragment_cache_key)
          key = @view.combined_fragment_cache_key(key)
        elsif ::Hash === key
          key = @view.url_for(key).split("://", 2).last
        end
        ::ActiveSupport::Cache.expand_cache_key(key, :jbuilder)
      end

      # The JSON text cached under key, "" for a block that built nothing,
      # or nil: a miss, or an entry that is not JSON Jetson can paste (then
      # rendered and written again).
      def read(key, options)
        text = instrument(:read_fragment, key) { store.read(key, store_options(store, options)) }
        text if text == "" || ::Jetson::Builder.json_fragment?(text)
      end

      # Caches the JSON text the block returns. The text is complete before
      # the store sees it: a block that raises writes nothing.
      def write(key, options)
        instrument(:write_fragment, key) do
          text = yield
          store.write(key, text, store_options(store, options))
        end
      end

      # cache_root!: the document's JSON text under the jbuilder gem's own
      # key, read or rendered and written.
      def fetch_root(key, options)
        key = key(key, options)
        cached = instrument(:read_fragment, key) { store.read(key, options) }
        cached || instrument(:write_fragment, key) { yield.tap { |text| store.write(key, text, options) } }
      end

      # The cached texts of keys (one read_multi), without entries Jetson
      # cannot paste; "" is an element that built nothing (a hit, as the
      # gem's cached Jbuilder::Blank is).
      def read_multi(store, keys)
        texts = store.read_multi(*keys, **store_options(store, {}))
        texts.select! { |_key, text| text == "" || ::Jetson::Builder.json_fragment?(text) }
        texts
      end

      def write_multi(store, entries, options = {})
        store.write_multi(entries, **store_options(store, options))
      end

      private

      def with_record_keys(key)
        return key.map { |part| with_record_keys(part) } if ::Array === key

        made = (@records ||= Jetson::Rails::RecordCacheKeys.new).for(key)
        made ? RecordKey.new(*made) : key
      end

      def store
        ::Rails.cache
      end

      def instrument(name, key, &block)
        @view.controller.instrument_fragment_cache(name, key, &block)
      end

      def store_options(store, options)
        options.merge(namespace: namespace(store, options))
      end

      def namespace(store, options)
        base = options.fetch(:namespace) { store.options[:namespace] }
        base = base.call if base.respond_to?(:call)
        base ? "#{base}:#{FragmentCache.jetson_namespace}" : FragmentCache.jetson_namespace
      end
    end
  end
end
