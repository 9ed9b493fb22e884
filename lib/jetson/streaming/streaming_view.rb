# frozen_string_literal: true

module Jetson
  module Streaming
    # `render json_stream: true`: the action's .json.jbuilder view (or the
    # one `render :name, json_stream: true` names), with jetson/jbuilder.
    # The view runs whole with Jbuilder's semantics, except that a
    # collection of partials given an unloaded ActiveRecord relation at the
    # top level of the document,
    #
    #   json.array! @orders, partial: "orders/order", as: :order
    #   json.partial! partial: "orders/order", collection: @orders, as: :order
    #   json.data @orders, partial: "orders/order", as: :order
    #
    # leaves a marker where its array goes. The view's JSON is cut at the
    # markers, and each collection is read in batches and rendered with the
    # same partial, options and key settings (key_format!, ignore_nil!,
    # deep_format_keys!) as the view would have: the bytes of the
    # non-streaming render. Anything nested (inside a block, a partial, a
    # cache! block) renders whole, as do block forms and loaded relations
    # (their records are in memory already).
    #
    # @api private
    module ViewStream
      module_function

      def render(controller, options)
        unless defined?(::JbuilderTemplate) && defined?(::Jetson::Builder) && ::JbuilderTemplate <= ::Jetson::Builder
          raise ArgumentError, "json_stream: true (a streamed view) needs jetson/jbuilder, not the jbuilder gem"
        end

        view = Streaming.json_view(controller)
        collector = Collector.new
        json = StreamingTemplate.new(view, collector)
        view.render(template: options[:template], prefixes: options[:prefixes], locals: { json: json })
        texts = Streaming.cut(json.target!, collector.marker, collector.entries.size)
        parts = collector.entries.each_with_index.map do |(collection, elements, brackets), i|
          # array!'s marker stands in an array of its own: the stream
          # writes the brackets.
          if brackets
            texts[i] = texts[i].delete_suffix("[")
            texts[i + 1] = texts[i + 1].delete_prefix("]")
          end
          [collection, elements.with_view(view)]
        end
        [texts, parts]
      end
    end

    # The collections a view deferred, in the order their markers appear.
    #
    # @api private
    class Collector
      attr_reader :marker, :entries

      def initialize
        @marker = Streaming.marker
        @entries = []
      end

      def defer(collection, options, settings, in_array: false)
        @entries << [collection, ViewElements.new(options, settings), in_array]
        "#{@marker}-#{@entries.size - 1}"
      end
    end

    # A batch as the view would have written its elements: a builder with
    # the view's key settings at the point of the call, and the partial's
    # options (locals, cached:) as given.
    #
    # @api private
    class ViewElements
      def initialize(options, settings, view = nil)
        @options = options
        @settings = settings
        @view = view
      end

      def with_view(view) = ViewElements.new(@options, @settings, view)

      def call(records)
        json = ::JbuilderTemplate.new(@view)
        @settings.each { |method, (args, kwargs)| json.__send__(method, *args, **kwargs) }
        json.array!(records, @options.dup)
        json.target!
      end
    end

    # The view's `json`: JbuilderTemplate, counting how deep the view is in
    # the document (blocks, partials, cache blocks) so that only the top
    # level defers, and remembering the key settings a deferred collection
    # is to be rendered with.
    #
    # @api private
    class StreamingTemplate < ::JbuilderTemplate
      def initialize(context, collector)
        @_collector = collector
        @_depth = 0
        # Jbuilder's scopes restore key_format! and deep_format_keys!, not
        # ignore_nil!: the top level's settings are the calls made there,
        # and the last ignore_nil! anywhere.
        @_settings = {}
        super(context)
      end

      def set!(key, *args, &block)
        block ? _nested { super } : super
      end

      def array!(*args, &block)
        block ? _nested { super } : super
      end

      def child!(&block)
        _nested { super }
      end

      def partial!(*args)
        args.one? && _active_model?(args.first) ? _nested { super } : super
      end

      def cache!(*args, &block)
        _nested { super }
      end

      def cache_root!(*args, &block)
        _nested { super }
      end

      def key_format!(*args, **kwargs)
        @_settings[:key_format!] = [args, kwargs] if @_depth.zero?
        super
      end

      def deep_format_keys!(value = true)
        @_settings[:deep_format_keys!] = [[value], {}] if @_depth.zero?
        super
      end

      def ignore_nil!(value = true)
        @_settings[:ignore_nil!] = [[value], {}]
        super
      end

      private

      def method_missing(*args, &block)
        block ? _nested { super } : super
      end

      def _nested
        @_depth += 1
        yield
      ensure
        @_depth -= 1
      end

      def _streamable?(collection)
        @_depth.zero? && defined?(::ActiveRecord::Relation) && ::ActiveRecord::Relation === collection &&
          !collection.loaded?
      end

      # `json.data @orders, partial:, as:`: the key's value is the stream.
      def _set_inline_partial(name, object, options)
        return _nested { super } unless _streamable?(object)

        set!(name, @_collector.defer(object, options, @_settings.dup))
      end

      # `json.array! @orders, partial:, as:` and partial!'s collection: the
      # document is the stream (its brackets come out with the marker's).
      def _render_partial_with_options(options)
        return _nested { super } unless options[:as] && _streamable?(options[:collection])

        collection = options[:collection]
        array!([@_collector.defer(collection, options.except(:collection), @_settings.dup, in_array: true)])
      end
    end
  end
end
