# frozen_string_literal: true

require "action_view"
require "jetson/views/cached_collection"
require "jetson/views/view_run_probe"
require "jetson/views/render_events"

module Jetson
  module Views
    # Renders the partials of a JbuilderTemplate: what the jbuilder gem does
    # with `@context.render(options)` (ActionView's render helper, its
    # Renderer and a new PartialRenderer per call) and with its
    # CollectionRenderer, done with the same lookups, locals, instrumentation
    # events and errors, but
    # - each template is found once per render: a partial rendered for every
    #   element of a collection (an author partial per post, a comments
    #   collection per post) is looked up once, not once per element;
    # - a collection's elements are rendered into the builder's native
    #   document, one scope each, with no RenderedTemplate, body Hash or
    #   output buffer per element;
    # - `cached:` collections keep each element's JSON text (see
    #   FragmentCache).
    #
    # One instance per rendered view: the view's JbuilderTemplate, which the
    # partials it renders share, holds it. Anything ActionView's render
    # helper does beyond this (formats:, layout:, object:, a collection
    # without as:, an object that renders itself) goes through the helper.
    #
    # @api private
    class PartialRenderer
      NO_PREFIXES = [].freeze
      # Options of partial! that are not locals: the gem's (partial, as,
      # collection, cached, locals), what render and its lookups read.
      SINGLE_OPTIONS = %i[partial as collection cached locals handlers object layout formats locale variants
                          spacer_template].freeze
      # LookupContext#find_template (an alias of find) is gone after Rails
      # 8.1, whose find returns nil for a missing template and find! raises.
      FIND = ::ActionView::LookupContext.method_defined?(:find!) ? :find! : :find_template
      # Whether the native side may repeat ActionView::Base#_run without a
      # Ruby frame (ext/jetson/builder/partials.c): asked once of the loaded
      # ActionView's _run (ViewRunProbe); otherwise _run itself is called.
      NATIVE_RUN = ViewRunProbe.native?

      def initialize(view)
        @view = view
        @debug_events = nil
        @templates = {}
        @object_paths = {}
        @variables = {}
        @details = {}.compare_by_identity
        @compiled = {}.compare_by_identity # templates compiled (Template#compile!) for direct rendering
        # A .jbuilder partial writes into `json` and returns nothing, so one
        # output buffer serves all of them (ActionView makes one per render).
        @buffer = ::ActionView::OutputBuffer.new
        # What ActionView passes a single partial for `yield` (its layout's content).
        @layout_block = proc { |*name| view._layout_for(*name) }
        # ... unless the app's view class has a _run of its own.
        @native_run = NATIVE_RUN && view.method(:_run).owner.equal?(::ActionView::Base)
      end

      # A single partial: render(partial: "posts/post", locals: {...}, handlers: [...]).
      def render(options)
        partial = options[:partial]
        return @view.render(options) if partial.nil? || delegated?(options)
        return render_object(partial, options[:locals] || {}, options) unless ::String === partial

        locals = options[:locals] || {}
        render_template(find(partial, locals.keys, details(options)), locals)
      end

      # partial!(model): ActionView's render(model, locals), the partial that
      # model.to_partial_path names, with the model as the local named after
      # it (or options[:as]).
      def render_object(object, locals, options = nil)
        if object.respond_to?(:to_ary) || (!options && object.respond_to?(:render_in))
          return options ? @view.render(options) : @view.render(object, locals)
        end

        path = object_partial_path(object)
        local = local_name(path, options && options[:as])
        template = find(path, locals.keys << local, options ? details(options) : {})
        locals[local] = object
        render_template(template, locals)
      end

      # A collection of partials into json's current node, as the jbuilder
      # gem's CollectionRenderer#render_collection_with_partial (a present
      # collection, options[:locals] holding json and options[:as] given).
      def render_collection(json, collection, partial, options)
        variables = variables(options[:as])
        locals = options[:locals]
        template = find(partial, locals.keys.concat(variables[0, 3]), details(options))
        cached = options[:cached] && caching?
        # ActionView defers a relation's preloading to the rendering of its
        # elements so that a cached collection preloads for its misses only.
        # Without a cache that is the preloading loading does anyway, so only
        # a cached collection asks for it (asking costs a scope per call).
        preload = cached && collection.respond_to?(:preload_associations)
        collection.skip_preloading! if preload && !collection.loaded?
        count = collection.respond_to?(:length) ? collection.length : collection.size
        ::ActiveSupport::Notifications.instrument("render_collection.action_view", identifier: template.identifier,
                                                                                  layout: nil, count: count) do |payload|
          node = json.__send__(:_collection_begin)
          if cached
            CachedCollection.new(self, json, template, options[:cached], preload)
                            .render(node, collection, payload, locals, variables)
          else
            render_elements(json, node, collection, template, locals, variables)
          end
          json.__send__(:_collection_merge!, node)
        end
      ensure
        @buffer = ::ActionView::OutputBuffer.new unless @buffer.empty?
      end

      # What _set_inline_partial and render do for a single partial under a
      # key (locals { as => object, json: json }, the default handlers), for
      # the native side to repeat per call: [template, method name (a Symbol
      # when _run is repeated natively), locals (the object set into it each
      # time), view, output buffer, self (for element_error), the layout
      # block, whether _run is repeated natively, the events owed to
      # listeners (view_events)]; false when a call must come here (a
      # template that is not a .jbuilder run directly).
      def inline_plan(json, partial, as)
        locals = { as => nil, json: json }
        plan(partial, locals.keys, locals)
      end

      # What partial! does for a name and locals (`json.partial!
      # "authors/author", author: post.author`: locals { keys..., json: },
      # the default handlers), for the native side to repeat per call, in
      # inline_plan's layout (the locals slot nil: each call makes its own);
      # false when a call must come here: a local name that is one of
      # render's options (the gem passes them to render too), a template that
      # is not a .jbuilder run directly. explicit: the locals came as
      # `locals:`, whose names are the partial's whatever they are.
      def single_plan(partial, keys, explicit)
        return false if !explicit && keys.any? { |key| option_name?(key) }

        plan(partial, keys.include?(:json) ? keys : [*keys, :json], nil)
      end

      # The events ActionView emits around a partial that a native run owes
      # its listeners (see ext/jetson/builder/view_events.c): the single
      # partial's render_partial (partial: true) and Template#render's
      # !render_template, as far as they are owed (RenderEvents: something
      # listens, or an agent has its own `instrument`); nil when none is.
      # Asked once per template and render.
      def view_events(template, partial:)
        partial &&= RenderEvents.owed?("render_partial.action_view")
        return nil unless partial || debug_events?

        identifier = template.identifier
        [::ActiveSupport::Notifications,
         partial ? "render_partial.action_view" : nil, partial ? { identifier: identifier, layout: nil }.freeze : nil,
         debug_events? ? "!render_template.action_view" : nil,
         debug_events? ? { virtual_path: template.virtual_path, identifier: identifier }.freeze : nil,
         template.virtual_path].freeze
      end

      # Renders each object as an element of node, ActionView's collection
      # locals set (the object as `as`, its _counter and _iteration); yields
      # after each element if given a block.
      def render_elements(json, node, objects, template, locals, variables)
        as, counter, iteration_name, implicit_locals = variables
        iteration = ::ActionView::PartialIteration.new(objects.size)
        # a partial of another handler returns its content: the element
        buffer = template.handler.equal?(::JbuilderHandler) ? @buffer : nil
        if buffer && !block_given? && direct?(template)
          Jetson::Rails::Diagnostics.native(:partials, iteration.size)
          return json.__send__(:_render_elements, node, objects, @view, template, locals, variables, iteration,
                               buffer, self, @native_run, view_events(template, partial: false))
        end
        why = !buffer ? :handler : (block_given? ? :cache_miss : indirect_reason(template))
        Jetson::Rails::Diagnostics.fallback(:partials, why, nil, template.virtual_path, iteration.size)
        objects.each do |object|
          locals[as] = object
          locals[counter] = iteration.index
          locals[iteration_name] = iteration
          json.__send__(:_collection_element, node) do
            template.render(@view, locals, buffer, implicit_locals: implicit_locals)
          end
          iteration.iterate!
          yield if block_given?
        end
      end

      # The partial template at path for these locals and lookup details:
      # ActionView's lookup (a path without a directory is looked up under
      # the controller's prefixes), remembered for this render. Without a
      # details key (template caching off, as in development) every call
      # looks up.
      def find(path, keys, details)
        lookup = @view.lookup_context
        prefixes = path.include?("/") ? NO_PREFIXES : lookup.prefixes
        details_key = lookup.details_key
        return lookup.__send__(FIND, path, prefixes, true, keys, details) unless details_key

        entries = (@templates[path] ||= [])
        entries.each do |entry|
          if entry[0].equal?(lookup) && entry[1].equal?(details_key) && entry[2] == keys && entry[3] == details &&
             entry[4] == prefixes
            return entry[5]
          end
        end
        template = lookup.__send__(FIND, path, prefixes, true, keys, details)
        entries << [lookup, details_key, keys, details, prefixes, template].freeze
        template
      end

      def view
        @view
      end

      private

      # Whether the elements of a collection can run the partial's compiled
      # method as Template#render does, without going through it (natively:
      # Jetson::Builder#_render_elements). Template#render compiles the
      # template (done here first), checks strict locals (then it goes on
      # doing so) and instruments "!render_template.action_view" (the native
      # runs emit it themselves while something listens: view_events).
      def direct?(template)
        return false if template.strict_locals?
        return true if @compiled.key?(template)
        return false unless template.respond_to?(:compile!, true)

        compile(template)
        @compiled[template] = true
      end

      # Why a .jbuilder template was not run directly (for the diagnostics):
      # direct? refused it, or, for a single partial the Ruby way,
      # debug_events? did.
      def indirect_reason(template)
        if template.strict_locals? then :strict_locals
        elsif !template.respond_to?(:compile!, true) then :view
        else :listener
        end
      end

      # Template#render's compile!, with its error handling (a syntax error
      # is an ActionView::SyntaxErrorInTemplate naming this template).
      def compile(template)
        template.__send__(:compile!, @view)
      rescue => e # rubocop:disable Style/RescueStandardError -- what Template#render rescues
        render_error(template, e)
      end

      # Whether "!render_template.action_view" is owed (asked once per
      # render: the answer only changes when an app subscribes): an APM
      # agent, or a subscriber to every event.
      def debug_events?
        @debug_events = RenderEvents.owed?("!render_template.action_view") if @debug_events.nil?
        @debug_events
      end

      # A plan for the native side (inline_plan's layout), or false.
      def plan(partial, keys, locals)
        options = { handlers: ::JbuilderTemplate.template_lookup_options[:handlers] }
        template = find(partial, keys, details(options))
        return false unless template.handler.equal?(::JbuilderHandler) && direct?(template)

        method = @native_run ? template.method_name.to_sym : template.method_name
        [template, method, locals, @view, @buffer, self, @layout_block, @native_run,
         view_events(template, partial: true)].freeze
      rescue ::ActionView::Template::Error
        # A template that does not compile: the Ruby way raises its error
        # where ActionView does, inside the partial's render event.
        false
      end

      # Template#render's work for a compiled .jbuilder partial (see direct?).
      def run(template, locals, &block)
        @view._run(template.method_name, template, locals, @buffer, &block)
        nil
      rescue => e # rubocop:disable Style/RescueStandardError -- what Template#render rescues
        render_error(template, e)
      end

      # An error of a partial's method in the native collection loop
      # (_render_elements), raised again here so that render_error runs in a
      # rescue clause, where ActionView::Template::Error.new finds it as $!
      # (outside one, $! is whatever the last rescue clause left).
      def element_error(template, error)
        ::Kernel.raise error
      rescue => e # rubocop:disable Style/RescueStandardError -- the error raised just above
        render_error(template, e)
      end

      # Template#render's handling of an error from the partial's method:
      # ActionView::Template::Error, naming the templates it passed through.
      def render_error(template, error)
        if error.is_a?(::ActionView::Template::Error)
          error.sub_template_of(template)
          ::Kernel.raise error
        end
        ::Kernel.raise ::ActionView::Template::Error, template
      end

      def option_name?(key)
        SINGLE_OPTIONS.include?(key) || ::ActionView::LookupContext.registered_details.include?(key)
      end

      # Render options ActionView's render helper interprets and this class
      # leaves to it.
      def delegated?(options)
        options.key?(:collection) || options.key?(:object) || options.key?(:layout) || options.key?(:formats)
      end

      # ActionView's collection caching applies (CollectionCaching#will_cache?).
      def caching?
        controller = @view.controller
        controller.respond_to?(:perform_caching) && controller.perform_caching
      end

      def render_template(template, locals)
        jbuilder = template.handler.equal?(::JbuilderHandler)
        ::ActiveSupport::Notifications.instrument("render_partial.action_view",
                                                  identifier: template.identifier, layout: nil,
                                                  locals: locals) do |payload|
          content = if jbuilder && !debug_events? && direct?(template)
                      Jetson::Rails::Diagnostics.native(:partials, 1)
                      run(template, locals, &@layout_block)
                    else
                      why = jbuilder ? indirect_reason(template) : :handler
                      Jetson::Rails::Diagnostics.fallback(:partials, why, nil, template.virtual_path, 1)
                      template.render(@view, locals, jbuilder ? @buffer : nil, add_to_stack: true, &@layout_block)
                    end
          payload[:cache_hit] = @view.view_renderer.cache_hits[template.virtual_path]
          content
        end
      end

      # The lookup details render options give (ActionView's extract_details),
      # remembered per handlers list for the usual options that name no
      # other detail.
      def details(options)
        handlers = options[:handlers]
        unless options.key?(:locale) || options.key?(:variants)
          # by identity: JbuilderTemplate passes template_lookup_options's own list
          return @details[handlers] ||= (handlers ? { handlers: Array(handlers) } : {}).freeze
        end

        details = {}
        ::ActionView::LookupContext.registered_details.each do |key|
          value = options[key]
          details[key] = Array(value) if value
        end
        details
      end

      # [as, as_counter, as_iteration, [as_counter, as_iteration]] for a
      # collection's `as:` (ActionView's retrieve_variable), which must be a
      # valid local name.
      def variables(as)
        @variables[as] ||= begin
          unless /\A[a-z_]\w*\z/.match?(as.to_s)
            ::Kernel.raise ::ArgumentError,
                           ::ActionView::AbstractRenderer::ObjectRendering::OPTION_AS_ERROR_MESSAGE % as
          end
          name = as.to_sym
          counter = :"#{name}_counter"
          iteration = :"#{name}_iteration"
          [name, counter, iteration, [counter, iteration].freeze].freeze
        end
      end

      # The partial path of an object (ActionView's partial_path), with the
      # controller's namespace in front when the app asks for it.
      def object_partial_path(object)
        object = object.to_model if object.respond_to?(:to_model)
        unless object.respond_to?(:to_partial_path)
          ::Kernel.raise ::ArgumentError, "'#{object.inspect}' is not an ActiveModel-compatible object. " \
                                          "It must implement #to_partial_path."
        end

        path = object.to_partial_path
        return path unless @view.prefix_partial_path_with_controller_namespace

        prefix = @view.lookup_context.prefixes.first
        (@object_paths[prefix] ||= {})[path] ||= namespaced_path(prefix, path)
      end

      # "admin/posts" and "comments/comment" give "admin/comments/comment":
      # the directories of the controller's prefix, up to the first one the
      # object's path already starts with, go in front.
      def namespaced_path(prefix, path)
        return path unless prefix&.include?("/") && path.include?("/")

        namespace = ::File.dirname(prefix).split("/")
        object_dirs = path.split("/")[0..-3]
        kept = namespace.each_with_index.take_while { |dir, i| dir != object_dirs[i] }.map(&:first)
        (kept << path).join("/")
      end

      # The local the object is given to the partial as: as:, or the
      # partial's name.
      def local_name(path, as)
        return variables(as).first if as

        base = path.end_with?("/") ? "" : ::File.basename(path)
        match = /\A_?(.*?)(?:\.\w+)*\z/.match(base)
        unless match
          ::Kernel.raise ::ArgumentError,
                         ::ActionView::AbstractRenderer::ObjectRendering::IDENTIFIER_ERROR_MESSAGE % path
        end
        match[1].to_sym
      end
    end
  end
end
