# frozen_string_literal: true

require "jetson/rails/record_cache_keys"

module Jetson
  module Views
    # The cache keys of a cached collection's elements, as ActionView makes
    # them: combined_fragment_cache_key(cache_fragment_name(key, digest_path:)),
    # [:views, <RAILS_CACHE_ID>, <the controller's fragment_cache_keys>,
    # <digest path>, key], which the store expands into a String and a
    # version.
    #
    # Everything before the element's own key is the same for every element
    # of the collection, so where the store expands keys as
    # ActiveSupport::Cache::Store does, that part is made and expanded once
    # per collection and each element gets an ItemKey: an object that
    # answers cache_key and cache_version, which the store asks before it
    # looks at an Array, with the String and version it would have made from
    # the Array. The entries, their keys and versions are the same. The
    # controller's fragment_cache_keys blocks run once per collection instead
    # of once per element. Elements whose key is an Array, a Hash or nil (the
    # key ActionView makes of them is not the prefix plus the key), proc keys
    # and other stores get ActionView's Array, hashed once (Key).
    #
    # @api private
    class CollectionKeys
      # An element's key as ActionView's Array, hashed once: the keys are
      # looked up several times (equal keys, the store's results, hits and
      # misses, the order), and Array#hash hashes every part again, a
      # record's through ActiveRecord::Core#hash, which reads its id.
      class Key < ::Array
        def hash
          @hash ||= super
        end
      end

      # An element's key when it is the element itself (`cached: true`; an
      # ActiveRecord record's key and version made by RecordCacheKeys):
      # equal to another when their elements are, as the Arrays are (the
      # prefix is the collection's).
      class ItemKey
        attr_reader :item, :cache_key, :cache_version

        def initialize(item, cache_key, cache_version)
          @item = item
          @cache_key = cache_key
          @cache_version = cache_version
          @hash = item.hash
        end

        attr_reader :hash

        def eql?(other)
          other.is_a?(ItemKey) && @item.eql?(other.item)
        end
        alias == eql?

        def inspect
          "#<#{self.class.name} #{@cache_key} #{@cache_version}>"
        end
      end

      STORE_METHODS = %i[expanded_key expanded_version].freeze
      private_constant :STORE_METHODS

      # view: the ActionView::Base; store: the collection cache; key_of: the
      # `cached:` proc or nil.
      def initialize(view, store, digest_path, key_of)
        @view = view
        @store = store
        @digest_path = digest_path
        @key_of = key_of
        @prefix = nil
        @prefix = prefix unless key_of || !stock_store?
        @records = Jetson::Rails::RecordCacheKeys.new
      end

      def for(item)
        return array_key(@key_of ? @key_of.call(item) : item) unless @prefix && plain?(item)

        key_text, versions = @prefix
        # the store's expanded_key and expanded_version of the item
        item_key, version = @records.for(item) || [@store.send(:expanded_key, item), item_version(item)]
        ItemKey.new(item, "#{key_text}/#{item_key}", version_param(versions, version))
      end

      private

      def array_key(key)
        Key.new(@view.combined_fragment_cache_key(@view.cache_fragment_name(key, digest_path: @digest_path)))
      end

      def plain?(item)
        !(item.nil? || ::Array === item || ::Hash === item)
      end

      # (versions + [version]).compact.to_param, the store's expanded
      # version of the whole key, without the Arrays where the prefix has
      # no version (ActionView's never has) and the element's is a String.
      def version_param(versions, version)
        if version.nil?
          versions.to_param
        elsif versions.empty? && ::String === version
          version
        else
          (versions + [version]).to_param
        end
      end

      def item_version(item)
        @store.send(:expanded_version, item)
      end

      # [the prefix's expanded key, the versions of its parts (an Array)],
      # from ActionView's Array for a stand-in element; nil when that Array
      # does not end with it.
      def prefix
        marker = ::Object.new
        parts = @view.combined_fragment_cache_key(@view.cache_fragment_name(marker, digest_path: @digest_path))
        return nil unless parts.size > 1 && parts.last.equal?(marker) && parts.count { _1.equal?(marker) } == 1

        parts = parts[0..-2]
        versions = parts.map { |part| @store.send(:expanded_version, part) }.compact
        [parts.map { |part| @store.send(:expanded_key, part) }.join("/"), versions]
      end

      def stock_store?
        STORE_METHODS.all? do |name|
          @store.respond_to?(name, true) && @store.method(name).owner.equal?(::ActiveSupport::Cache::Store)
        end
      rescue NameError
        false
      end
    end
  end
end
