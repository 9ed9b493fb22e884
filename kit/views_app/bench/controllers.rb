# frozen_string_literal: true

# Controllers and routes of Kit::ViewsApp's bench setup (kit/views_app.rb),
# for bench/views.rb. Four endpoints, each served by the kinds of contender
# that have it, with the same records:
#
#   index   the scaffold's index: Post.all, every post through posts/_post
#   nested  posts with their author and comments (and each comment's
#           author) through nested partials, preloaded
#   cached  index with the collection cached per post (warm in the bench)
#   app     a row per post as apps write one: posts/_row, 34 DSL calls
#           (scalars, formatted values, nested blocks, a small collection
#           with a block, conditionals); .json.jbuilder only
#
#   GET /posts.json, /posts/nested.json, /posts/cached.json, /posts/app.json   the views
#   GET /hashes.json, ...   render json: Hashes built in the controller
#   GET /constant.json, ... floor: load the records, render a constant String
#   GET /reads.json, ...    floor: load the records, read what the views read
#                           (attributes, post_url), render a constant String
#   GET /urls.json, ...     floor: load the records, post_url for each post and
#                           (nested) the association readers, render a constant String
#   GET /templates.json, ... floor: load the records, run the view's templates with
#                           a json that builds nothing, render a constant String
#   GET /own.json, ...      reference: load the records, compute every value the
#                           templates compute (the templates' own Ruby, no template
#                           run, no json), render a constant String
#   GET /store/cached.json  floor: load the records, the store's read_multi of the
#                           cached collection's entries, render a constant String

module Kit
  module ViewsApp
    module Bench
      # The records each endpoint loads (as the views' controller does).
      RELATIONS = {
        "index" => -> { Post.all },
        "nested" => -> { Post.includes(:author, comments: :author) },
        "cached" => -> { Post.all },
        "app" => -> { Post.includes(:author, :comments) }
      }.freeze

      # The floors' response: the reference (the jbuilder gem's) body of each
      # endpoint, sent by the parent after the checks, so that a floor's response
      # has the same bytes as the views' and the work after the controller
      # (Rack::ETag's digest, the body's length) is the same.
      FLOOR_BODIES = {}

      # The templates floor's runner: each template looked up once (with the
      # locals its calls pass) and compiled as ActionView compiles it, then its
      # compiled method called directly, as Template#render's _run ends up
      # calling it.
      class TemplateRunner
        OPTIONS = { formats: [:json], handlers: [:jbuilder] }.freeze

        def initialize(view)
          @view = view
          @buffer = ::ActionView::OutputBuffer.new
          @templates = {}
        end

        def run(path, locals, partial: true)
          template = (@templates[path] ||= compiled(path, locals.keys, partial))
          @view.public_send(template, locals, @buffer)
        end

        private

        def compiled(path, keys, partial)
          template = @view.lookup_context.find_template(path, [], partial, keys, OPTIONS)
          template.send(:compile!, @view)
          template.method_name
        end
      end

      # The `json` of the templates floor: every call does nothing, except a
      # partial, which runs (each element of a collection, or the one object)
      # with the locals a Jbuilder passes it (the object as `as:`, and json), in
      # one locals Hash per partial set anew for each call, as Jetson's renderer
      # does: what is left is the templates' own work.
      class NullJson < BasicObject
        def initialize(runner)
          @runner = runner
          @locals = {}
        end

        def extract!(*) = nil

        def array!(collection, options = nil)
          each_partial(collection, options[:partial], options[:as], true) if options
          nil
        end

        # json.key(value) and json.key(value, partial:, as:): the options arrive
        # as the Hash the call site made. A block runs as a Jbuilder runs it:
        # once (json.key do ... end), or once per element of the value.
        def method_missing(_key, value = nil, options = nil)
          if options
            each_partial(value, options[:partial], options[:as], value.respond_to?(:to_ary))
          elsif defined?(yield) # BasicObject: no Kernel#block_given?
            value.nil? ? yield : value.each { |element| yield element }
          end
          nil
        end

        private

        def each_partial(value, partial, as, collection)
          return unless partial

          locals = (@locals[partial] ||= { as => nil, json: self })
          if collection
            value.each do |object|
              locals[as] = object
              @runner.run(partial, locals)
            end
          else
            locals[as] = value
            @runner.run(partial, locals)
          end
        end
      end

      # StoreController's keys, by the ids of the posts they are for.
      STORE_KEYS = {}
      # Jetson keeps its JSON fragments under a namespace of their own (the
      # encoding settings in its name); the floor reads the jetson world's.
      STORE_NAMESPACE = (Jetson::Views::FragmentCache.jetson_namespace if defined?(Jetson::Views::FragmentCache))
    end
  end
end

# The scaffold's controller (implicit rendering of posts/<action>).
class PostsController < ActionController::Base
  def index
    @posts = Kit::ViewsApp::Bench::RELATIONS["index"].call
  end

  def nested
    @posts = Kit::ViewsApp::Bench::RELATIONS["nested"].call
  end

  def cached
    @posts = Kit::ViewsApp::Bench::RELATIONS["cached"].call
  end

  def app
    @posts = Kit::ViewsApp::Bench::RELATIONS["app"].call
  end

  def show
    head :not_found # only here for post_url
  end
end

# `render json:` of Hashes with the views' keys, in the views' order, built
# from the same readers; ActiveSupport.json_encoder decides the encoder.
class HashesController < ActionController::Base
  def index
    render json: Kit::ViewsApp::Bench::RELATIONS["index"].call.map { |post| post_hash(post) }
  end

  def nested
    render json: Kit::ViewsApp::Bench::RELATIONS["nested"].call.map { |post|
      post_hash(post).merge!(author: author_hash(post.author), comments: post.comments.map { |c| comment_hash(c) })
    }
  end

  # One Rails.cache.fetch_multi for the collection (a read_multi, and a
  # write_multi of the misses), each post's Hash cached under the record's
  # cache key and version.
  def cached
    posts = Kit::ViewsApp::Bench::RELATIONS["cached"].call.to_a
    render json: Rails.cache.fetch_multi(*posts) { |post| post_hash(post) }.values
  end

  private

  def post_hash(post)
    { id: post.id, title: post.title, body: post.body, published_at: post.published_at, created_at: post.created_at,
      updated_at: post.updated_at, url: post_url(post, format: :json) }
  end

  def author_hash(author) = { id: author.id, name: author.name, email: author.email }

  def comment_hash(comment)
    { id: comment.id, body: comment.body, created_at: comment.created_at, author: author_hash(comment.author) }
  end
end

# Floor: what a request costs outside the view.
#
# The floors keep their records where the views' controller keeps them, in
# @posts, and not in a local: since Rails 7.1 ActionController puts the
# controller in ActiveSupport::ExecutionContext for the whole request, a Hash
# that lives long enough to be old, so a minor GC during the request promotes
# the controller and everything its ivars reach (the relation, every record,
# its attribute set and raw row, the preloaded associations). Those objects
# then stay until a major GC. A floor holding them in a local was spared that,
# and on nested made about half the major GCs of any view (measured:
# docs/benchmarks.md, "What the floors hold").
class ConstantController < ActionController::Base
  %w[index nested cached app].each do |endpoint|
    define_method(endpoint) do
      @posts = Kit::ViewsApp::Bench::RELATIONS[endpoint].call.to_a
      render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch(endpoint)
    end
  end
end

# Floor: the constant floor plus what a view layer that reads attributes
# natively still has to run in Ruby: the app's URL helper for every post
# (post_url) and, for nested, the association readers that walk the tree
# (post.author, post.comments, comment.author).
class UrlsController < ActionController::Base
  def index
    @posts = Kit::ViewsApp::Bench::RELATIONS["index"].call
    @posts.each { |post| post_url(post, format: :json) }
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("index")
  end

  def nested
    @posts = Kit::ViewsApp::Bench::RELATIONS["nested"].call
    @posts.each do |post|
      post_url(post, format: :json)
      post.author
      post.comments.each(&:author)
    end
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("nested")
  end
end

# Floor: the constant floor plus the reads the views make (no JSON built).
# For the warm cached collection the reads are the cache's: every record's
# cache key and version, asked of ActiveRecord (as ActionView's collection
# caching asks them), and one read_multi returning a JSON String per post.
# A view layer that caches a collection pays the read_multi before it
# writes a byte; the keys' cost is ActiveRecord's, which Jetson makes
# itself for stock records (lib/jetson/rails/record_cache_keys.rb).
class ReadsController < ActionController::Base
  def index
    @posts = Kit::ViewsApp::Bench::RELATIONS["index"].call
    @posts.each { |post| read_post(post) }
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("index")
  end

  def nested
    @posts = Kit::ViewsApp::Bench::RELATIONS["nested"].call
    @posts.each do |post|
      read_post(post)
      read_author(post.author)
      post.comments.each do |comment|
        comment.id
        comment.body
        comment.created_at
        read_author(comment.author)
      end
    end
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("nested")
  end

  def cached
    @posts = Kit::ViewsApp::Bench::RELATIONS["cached"].call.to_a
    keys = @posts.each_with_index.to_h { |post, i| [["bench/reads", post], i] }
    hits = Rails.cache.read_multi(*keys.keys)
    missed = keys.reject { |key, _| hits.key?(key) }
    Rails.cache.write_multi(missed.to_h { |key, i| [key, element_json(i)] }) unless missed.empty?
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("cached")
  end

  private

  # What a cached entry holds: the element's JSON text (the gem's body, one
  # element per post), written by the first request.
  def element_json(index)
    JSON.parse(Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("cached"))[index].to_json
  end

  def read_post(post)
    post.id
    post.title
    post.body
    post.published_at
    post.created_at
    post.updated_at
    post_url(post, format: :json)
  end

  def read_author(author)
    author.id
    author.name
    author.email
  end
end

# Floor: the constant floor plus the templates' own Ruby, which every
# Jbuilder (the gem's, Jetson's) runs: the endpoint's .json.jbuilder view
# and every partial it renders, their compiled methods called with their
# locals and a `json` that builds nothing (Kit::ViewsApp::Bench::NullJson),
# so the templates' code runs as under a view layer (each line's arguments
# and options, post_url, the association readers, ActionView's
# compiled-method prologue and its @virtual_path String), while no JSON is
# built, no event sent and each template is looked up once per request.
class TemplatesController < ActionController::Base
  %w[index nested app].each do |endpoint|
    define_method(endpoint) do
      @posts = Kit::ViewsApp::Bench::RELATIONS[endpoint].call
      runner = Kit::ViewsApp::Bench::TemplateRunner.new(view_context)
      runner.run("posts/#{endpoint}", { json: Kit::ViewsApp::Bench::NullJson.new(runner) }, partial: false)
      render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch(endpoint)
    end
  end
end

# Reference: the templates' own Ruby. The constant floor plus every value
# the endpoint's templates compute, computed in the action as the templates
# compute them (each attribute the views read, each association reader,
# post_url, and for app the formatted values, the author's initials, each
# comment's flag), kept in nothing: no template is looked up or run, no
# json is called, no event is sent. A view layer's time above the constant
# floor, divided by this row's, is what the view layer costs on top of the
# templates' own work (issue 61). For index and nested the values are the
# reads floor's (ReadsController: those templates compute nothing beyond
# their reads and post_url); for app they are OwnRuby#row's.
class OwnController < ActionController::Base
  def index
    @posts = Kit::ViewsApp::Bench::RELATIONS["index"].call
    @posts.each { |post| post_values(post) }
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("index")
  end

  def nested
    @posts = Kit::ViewsApp::Bench::RELATIONS["nested"].call
    @posts.each do |post|
      post_values(post)
      author_values(post.author)
      post.comments.each do |comment|
        comment.id
        comment.body
        comment.created_at
        author_values(comment.author)
      end
    end
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("nested")
  end

  def app
    @posts = Kit::ViewsApp::Bench::RELATIONS["app"].call
    @posts.each { |post| row_values(post) }
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("app")
  end

  private

  # posts/_post and posts/_nested_post: extract! of six attributes, the URL.
  def post_values(post)
    post.id
    post.title
    post.body
    post.published_at
    post.created_at
    post.updated_at
    post_url(post, format: :json)
  end

  # authors/_author: extract! of three attributes.
  def author_values(author)
    author.id
    author.name
    author.email
  end

  # posts/_row, line by line: every value it passes to json, in its order.
  def row_values(post)
    author = post.author
    comments = post.comments
    post.id
    post.title
    post.body.truncate(80, separator: " ")
    post.body.split.size
    post.published_at.present?
    post.published_at.strftime("%b %-d, %Y")
    post.published_at
    post.updated_at
    post_url(post, format: :json)
    author.id
    author.name
    author.name.split.map { |word| word[0] }.join.upcase
    author.email if author.email
    comments.size
    comments.last(3).each do |comment|
      comment.id
      comment.body.truncate(40)
      comment.author_id == author.id
      comment.created_at
    end
    comments.size > 5
    (post.body.length / 1000.0).ceil
    post.updated_at > post.created_at
    post.title.split.select { |word| word.length > 4 }.first(3)
  end
end

# Floor for the warm cached collection: the constant floor plus the store's
# own read_multi of the collection's entries, under the keys ActionView makes
# for posts/_post (cache_fragment_name, combined_fragment_cache_key), expanded
# by the store once per world and kept: what reading the 100 cached elements
# costs a view layer at the least, without making their keys. A request that
# does not find every entry raises, so the floor reads what the view wrote.
class StoreController < ActionController::Base
  ExpandedKey = Struct.new(:cache_key, :cache_version)

  def cached
    @posts = Kit::ViewsApp::Bench::RELATIONS["cached"].call.to_a
    store = ActionView::PartialRenderer.collection_cache
    keys = (Kit::ViewsApp::Bench::STORE_KEYS[@posts.map(&:id)] ||= expanded_keys(store, @posts))
    hits = store.read_multi(*keys, namespace: Kit::ViewsApp::Bench::STORE_NAMESPACE)
    raise "store floor: #{hits.size} of #{keys.size} entries found (is the cache warm?)" unless hits.size == keys.size

    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("cached")
  end

  private

  def expanded_keys(store, posts)
    view = view_context
    template = view.lookup_context.find_template("posts/post", [], true, [:post], formats: [:json])
    digest_path = view.digest_path_from_template(template)
    posts.map do |post|
      key = view.combined_fragment_cache_key(view.cache_fragment_name(post, digest_path: digest_path))
      ExpandedKey.new(store.send(:expanded_key, key), store.send(:expanded_version, key))
    end
  end
end

require_relative "own_events"

Kit::ViewsApp::Application.routes.draw do
  resources :posts, only: %i[index show] do
    collection do
      get :nested
      get :cached
      get :app
    end
  end
  %w[hashes constant reads urls templates store own own_events].each do |name|
    get "#{name}(.:format)" => "#{name}#index"
    get "#{name}/nested(.:format)" => "#{name}#nested"
    get "#{name}/cached(.:format)" => "#{name}#cached"
    get "#{name}/app(.:format)" => "#{name}#app"
  end
end
