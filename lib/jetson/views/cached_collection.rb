# frozen_string_literal: true

require "jetson/views/fragment_cache"
require "jetson/views/collection_keys"

module Jetson
  module Views
    # A `cached: true` (or `cached: ->(item) { key }`) collection of partials:
    # ActionView's collection caching (CollectionCaching), keys and order
    # of work included, with each element's JSON text as the cached value,
    # read with one read_multi and pasted into the document on a hit.
    #
    # As in ActionView, items with the same key are rendered once (the last
    # of them, at the place of the first), misses are rendered before the
    # collection is put together, and their counters count misses only.
    #
    # @api private
    class CachedCollection
      def initialize(partials, json, template, cached, preload)
        @partials = partials
        @view = partials.view
        @json = json
        @template = template
        @key_of = cached.respond_to?(:call) ? cached : nil
        @preload = preload
        @write_options = write_options(cached)
      end

      def render(node, collection, payload, locals, variables)
        digest_path = @view.digest_path_from_template(@template)
        collection.preload_associations(collection) if @key_of && @preload
        store = ::ActionView::PartialRenderer.collection_cache
        keys = CollectionKeys.new(@view, store, digest_path, @key_of)
        keyed = {}
        ordered = []
        collection.each do |item|
          key = keys.for(item)
          ordered << key
          keyed[key] = item
        end

        cache = FragmentCache.new(@view)
        texts = cache.read_multi(store, keyed.keys)
        payload[:cache_hits] = texts.size
        missed = keyed.reject { |key, _| texts.key?(key) }
        rendered = nil
        unless missed.empty?
          items = missed.values
          collection.preload_associations(items) if @preload
          rendered, rendered_texts = render_misses(items, locals, variables)
          cache.write_multi(store, missed.keys.zip(rendered_texts).to_h, @write_options)
          positions = missed.keys.each_with_index.to_h
        end
        # A hit is pasted as its text; a miss is the element just rendered,
        # with its Ruby values, as the jbuilder gem has it on a miss.
        elements = ordered.map { |key| positions&.[](key) || texts.fetch(key) }
        @json.__send__(:_collection_fill, node, rendered, elements)
      end

      # ActionView 8.0.5 and 8.1.3 pass `cached: { expires_in: }` on to
      # write_multi; earlier versions (7.2 included) treat the Hash as true.
      EXPIRING_VERSIONS = [Gem::Requirement.new("~> 8.0.5"), Gem::Requirement.new(">= 8.1.3")].freeze
      private_constant :EXPIRING_VERSIONS

      private

      def write_options(cached)
        return {} unless ::Hash === cached && cached.key?(:expires_in)
        return {} unless EXPIRING_VERSIONS.any? { |requirement| requirement.satisfied_by?(::ActionView.gem_version) }

        { expires_in: cached[:expires_in] }
      end

      # Renders items on a node of their own; returns the node and the JSON
      # text of each element, for the store.
      def render_misses(items, locals, variables)
        node = @json.__send__(:_collection_begin)
        settings = @json.__send__(:_encoding_settings)
        texts = []
        @partials.render_elements(@json, node, items, @template, locals, variables) do
          texts << @json.__send__(:_element_text, node, settings)
        end
        [node, texts]
      end
    end
  end
end
