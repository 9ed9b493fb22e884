# frozen_string_literal: true

require "delegate"
require "action_view"
require "action_view/renderer/collection_renderer"
require "jetson/builder/jbuilder"

class Jbuilder
  # The jbuilder gem's renderer of `partial:`/`as:` collections, an
  # ActionView::CollectionRenderer: kept with the same constructor and
  # entry point (apps and tests set its collection_cache, which is
  # ActionView's), rendering through the view's Jetson::Views::PartialRenderer
  # into the builder's native document. JbuilderTemplate itself renders
  # collections with that PartialRenderer directly.
  class CollectionRenderer < ::ActionView::CollectionRenderer
    # The block (the jbuilder gem's per-element scope) is accepted for the
    # same signature; elements get the builder's native scopes instead.
    def initialize(lookup_context, options, &_scope)
      super(lookup_context, options)
    end

    # Renders `partial` for each element of `collection` into the builder
    # given as the `json` local.
    # @return [void]
    def render_collection_with_partial(collection, partial, _context, _block)
      json = @options[:locals].fetch(:json)
      json.__send__(:_partials).render_collection(json, collection, partial, @options)
    end
  end

  # A collection that counts but has no size (ActionView's collection
  # rendering asks for its size).
  class EnumerableCompat < ::SimpleDelegator
    # @return [Integer] the collection's count
    def size(*args, &block)
      __getobj__.count(*args, &block)
    end
  end
end
