# frozen_string_literal: true

require "action_view"
require "active_support/cache"
require "active_support/core_ext/array/extract_options"
require "active_support/core_ext/object/blank"
require "jetson/builder/jbuilder"
require "jetson/views/partial_renderer"
require "jetson/views/collection_renderer"
require "jetson/views/fragment_cache"

# `json` in a .json.jbuilder view: Jbuilder's DSL plus the view calls of the
# jbuilder gem's JbuilderTemplate (partial!, cache!, cache_root!, cache_if!,
# partial options on array! and on keys), with the same output.
#
# What differs is how: a partial writes into the same native document as the
# view that renders it (no Hash per partial), a collection of partials looks
# its template up once and runs it per element against that document, and
# fragment caches hold the JSON text of the fragment, pasted back on a hit
# without decoding it (see Jetson::Views::FragmentCache).
class JbuilderTemplate < ::Jbuilder
  class << self
    # Options for looking partials up: only .jbuilder templates by default.
    attr_accessor :template_lookup_options
  end

  self.template_lookup_options = { handlers: [:jbuilder] }

  # @param context [ActionView::Base] the view
  # @param options [Hash, nil] the options of {Jetson::Builder#initialize}
  def initialize(context, options = nil)
    @context = context
    @cached_root = nil
    @partials = nil
    @fragment_cache = nil
    _template! # set! and array! given partial options come back here
    _in_view! if defined?(::ActionView::Base) && ::ActionView::Base === context # array! returns nil there
    options.nil? ? super() : super(**options)
  end

  # partial! (documented in lib/jetson/api_docs.rb) is a C method: the
  # commonest forms, a name and locals, run natively from a plan
  # (ext/jetson/builder/partials.c); the others come to _render_partial!.
  include ::Jetson::Builder::TemplatePartials

  # Caches what the block builds, as the `cache` view helper caches markup
  # (same key and digest, `expires_in:` and the store's other options).
  # The entry holds the fragment's JSON text, pasted back on a hit. Without
  # `perform_caching`, just yields.
  #
  # @example
  #   json.cache! ["v1", @post], expires_in: 10.minutes do
  #     json.extract! @post, :id, :title
  #   end
  # @param key [Object] the cache key (ActiveSupport's expanded key rules)
  # @param options [Hash] the store's options (`expires_in:`...)
  # @yield builds the fragment
  # @return [void]
  def cache!(key = nil, options = {})
    return yield unless @context.controller.perform_caching

    cache = _fragment_cache
    key = cache.key(key, options)
    text = cache.read(key, options)
    if text
      _merge_json!(text)
    else
      cache.write(key, options) do
        _capture! { yield self } ? _captured_text : ""
      end
      _merge_captured!
    end
  end

  # Caches the whole document's JSON; nothing may be written before it.
  # @param key [Object] the cache key
  # @param options [Hash] the store's options
  # @yield builds the document
  # @return [void]
  # @raise [RuntimeError] something was written before it
  def cache_root!(key = nil, options = {})
    return yield unless @context.controller.perform_caching
    ::Kernel.raise "cache_root! can't be used after JSON structures have been defined" if _present?

    @cached_root = _fragment_cache.fetch_root([:root, key], options) do
      yield
      target!
    end
  end

  # {#cache!} when `condition` is truthy, else just the block.
  # @param condition [Object]
  # @return [void]
  def cache_if!(condition, *args, &block)
    condition ? cache!(*args, &block) : yield
  end

  # The document's JSON (the cached root's, after a {#cache_root!} hit).
  # @return [String]
  def target!
    @cached_root || super
  end

  private

  # partial!(*args) as the jbuilder gem's: a model, a name with locals, or
  # options.
  def _render_partial!(*args)
    if args.one? && _active_model?(args.first)
      _partials.render_object(args.first, { json: self })
    else
      options = args.extract_options!.dup
      options[:partial] = args.first if args.present?
      _render_partial_with_options(options)
    end
  end

  # The plan of `json.partial! "authors/author", author: post.author` for the
  # native side, asked once per partial and local names in a render (see
  # PartialRenderer#single_plan).
  def _single_partial_plan(partial, keys, explicit)
    _partials.single_plan(partial, keys, explicit)
  end

  def _partials
    @partials ||= ::Jetson::Views::PartialRenderer.new(@context)
  end

  def _fragment_cache
    @fragment_cache ||= ::Jetson::Views::FragmentCache.new(@context)
  end

  def _active_model?(object)
    object.class.respond_to?(:model_name) && object.respond_to?(:to_partial_path)
  end

  def _collection?(object)
    object.respond_to?(:map) && object.respond_to?(:count) && !(::Struct === object)
  end

  # Options that are not the partial's own become its locals, unless locals:
  # is given.
  def _render_partial_with_options(options)
    options[:locals] ||= options.except(:partial, :as, :collection, :cached)
    options[:handlers] ||= ::JbuilderTemplate.template_lookup_options[:handlers]
    if options[:as] && options.key?(:collection)
      _render_collection(options)
    else
      options[:locals][:json] = self
      _partials.render(options)
    end
  end

  def _render_collection(options)
    collection = options.delete(:collection) || EMPTY_ARRAY
    partial = options.delete(:partial)
    options[:locals][:json] = self
    if collection.respond_to?(:count) && !collection.respond_to?(:size)
      collection = ::Jbuilder::EnumerableCompat.new(collection)
    end
    if options.key?(:layout)
      ::Kernel.raise ::NotImplementedError, "The `:layout' option is not supported in collection rendering."
    end
    if options.key?(:spacer_template)
      ::Kernel.raise ::NotImplementedError, "The `:spacer_template' option is not supported in collection rendering."
    end

    if collection.present?
      _partials.render_collection(self, collection, partial, options)
    else
      array!
    end
  end

  # The plan of `json.author post.author, partial: "authors/author", as:
  # :author` for the native side (ext/jetson/builder/partials.c), asked once
  # per partial and `as:` in a render.
  def _inline_partial_plan(partial, as)
    _partials.inline_plan(self, partial, as)
  end

  # `json.author post.author, partial: "users/user", as: :user`: the partial
  # (or a collection of it) rendered as the key's value.
  def _set_inline_partial(name, object, options)
    if object.nil?
      _set_value(name, EMPTY_ARRAY)
    elsif _collection?(object)
      _scoped_set!(name) do
        options[:collection] = object
        _render_partial_with_options(options)
      end
    else
      _scoped_set!(name) do
        options[options[:as]] = object
        _render_partial_with_options(options)
      end
    end
  end

  # The JSON text of what the last cache! block built, for its cache entry.
  def _captured_text
    settings = _encoding_settings
    settings ? _captured_json(*settings) : _captured_value.to_json
  rescue ::Jetson::NestingError, ::Jetson::GeneratorError => e
    ::Jetson::Rails.raise_as_json_gem_error(e)
  end

  # The JSON text of a collection's last element, for the collection cache.
  def _element_text(node, settings)
    return _element_json(node, *settings) if settings

    value = _element_value(node)
    ::Jbuilder::Blank === value ? "" : value.to_json
  rescue ::Jetson::NestingError, ::Jetson::GeneratorError => e
    ::Jetson::Rails.raise_as_json_gem_error(e)
  end
  ::Jetson::Builder::JbuilderGem.carry_over(self)
end

# The :jbuilder template handler: a view gets a JbuilderTemplate as `json`
# and returns its JSON; a partial (rendered with a `json` local) writes into
# its caller's builder and returns nothing.
class JbuilderHandler
  cattr_accessor :default_format
  self.default_format = :json

  # The Ruby source ActionView compiles for a .jbuilder template.
  # @param template [ActionView::Template]
  # @param source [String, nil] the template's source (default: its own)
  # @return [String]
  def self.call(template, source = nil)
    source ||= template.source
    # Before the source: on its first line, so that errors point at the
    # source's own line numbers. After it: a `;` ends a last call whose
    # keyword value is omitted (`json.partial! "p", content:`), and the
    # newline a last line that is a comment. The literal is frozen: a
    # template is not compiled with frozen string literals, and every
    # partial would allocate it.
    "__jbuilder_json = defined?(json); json ||= JbuilderTemplate.new(self); #{source};\n" \
      "json.target! unless __jbuilder_json == \"local-variable\".freeze"
  end
  ::Jetson::Builder::JbuilderGem.carry_over(self)
end
