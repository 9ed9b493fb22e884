# frozen_string_literal: true

require_relative "../../kit/child_process"

# The parent's side of bench/views.rb: the endpoints, the contenders (which
# world serves each, at which path, with which encoder) and the world
# processes it drives (bench/views/world.rb).
module BenchViews
  ENDPOINTS = {
    "index" => "scaffold index: json.array! @posts, partial: \"posts/post\", as: :post (Post.all)",
    "nested" => "nested partials: each post with its author (authors/_author) and 10 comments " \
                "(comments/_comment, which renders its author through authors/_author); " \
                "Post.includes(:author, comments: :author)",
    "cached" => "cached collection, warm: json.array! @posts, partial: \"posts/post\", as: :post, cached: true " \
                "(Post.all; :memory_store; every entry written before timing)",
    "app" => "a row per post as apps write one: json.array! @posts, partial: \"posts/row\", as: :post; posts/_row " \
             "makes 34 DSL calls (scalars, formatted values, two nested do blocks, the 3 latest comments with a " \
             "block, conditionals); Post.includes(:author, :comments)"
  }.freeze
  # The endpoint only .json.jbuilder views have (the jbuilder gem, Jetson and
  # the floors): no .props, .jb or Hashes form of it was written.
  JBUILDER_ONLY = { "app" => "no view of this shape for this layer" }.freeze

  # role:    :reference (the jbuilder gem), :subject (Jetson), :peer, :floor
  # kind:    :views (GET /posts...), :hashes, :constant, :reads (see app/controllers.rb)
  # encoder: ActiveSupport.json_encoder while it runs: "stock" or "jetson"
  # check:   :reference; [:bytes, label] must be byte-identical to label's body (a
  #          difference aborts the run); :parsed equal to the reference after JSON.parse
  # skip:    { endpoint => why it has no such case }
  Contender = Struct.new(:label, :world, :kind, :role, :encoder, :check, :note, :skip, keyword_init: true) do
    def floor? = role == :floor
    def runs?(endpoint) = !(skip || {}).key?(endpoint)

    def path(endpoint)
      base = kind == :views ? "posts" : kind.to_s
      endpoint == "index" ? "/#{base}.json" : "/#{base}/#{endpoint}.json"
    end
  end

  GEM = "jbuilder gem"
  HASHES_STOCK = "render json: Hashes, ActiveSupport encoder"
  FLOOR = "floor: constant String"
  URLS_FLOOR = "floor: post_url, associations + constant String"
  TEMPLATES_FLOOR = "floor: the templates' Ruby, json building nothing + constant String"
  STORE_FLOOR = "floor: the store's read_multi + constant String (jetson world)"
  OWN = "reference: the templates' own Ruby + constant String"
  OWN_EVENTS = "reference: the templates' own Ruby + the page's render events + constant String"

  CONTENDERS = [
    Contender.new(label: GEM, world: "jbuilder", kind: :views, role: :reference, encoder: "stock", check: :reference,
                  note: "jbuilder #{Gem.loaded_specs['jbuilder']&.version}: `require \"jbuilder\"`, .json.jbuilder views"),
    Contender.new(label: "Jetson (jetson/jbuilder)", world: "jetson", kind: :views, role: :subject, encoder: "stock",
                  check: [:bytes, GEM],
                  note: "`require \"jetson/jbuilder\"` after Rails: the same .json.jbuilder files (ActiveSupport's " \
                        "encoder left in place, as in an app that only swaps the gem)"),
    Contender.new(label: "props_template", world: "props", kind: :views, role: :peer, encoder: "stock", check: :parsed,
                  skip: JBUILDER_ONLY,
                  note: "props_template #{Gem.loaded_specs['props_template']&.version} (Oj::StringWriter): .json.props " \
                        "views; `partial: [\"posts/post\", as: :post]`; cached: its `cache: ->(post) { post }` " \
                        "option on array! (read_multi, the elements' JSON text cached)"),
    Contender.new(label: "jb", world: "jb", kind: :views, role: :peer, encoder: "stock", check: :parsed,
                  skip: JBUILDER_ONLY,
                  note: "jb #{Gem.loaded_specs['jb']&.version}: .jb views returning Hashes/Arrays, `render partial:` " \
                        "(collections with `collection:, as:`); cached: jb has no cached collection, so its view calls " \
                        "Rails.cache.fetch_multi(*@posts) { |post| render(partial: \"posts/post\", ...) } " \
                        "(read_multi, each post's Hash cached, Marshal'd by :memory_store; no template digest in the keys)"),
    Contender.new(label: HASHES_STOCK, world: "jbuilder", kind: :hashes, role: :peer, encoder: "stock", check: :parsed,
                  skip: JBUILDER_ONLY,
                  note: "render json: of Hashes built in the controller with the views' keys and order " \
                        "(cached: Rails.cache.fetch_multi of each post's Hash, as jb)"),
    Contender.new(label: "render json: Hashes, Jetson::RailsEncoder", world: "jetson", kind: :hashes, role: :subject,
                  encoder: "jetson", check: [:bytes, HASHES_STOCK], skip: JBUILDER_ONLY,
                  note: "the same controller with ActiveSupport.json_encoder = Jetson::RailsEncoder " \
                        "(Jetson::Rails.install!)"),
    Contender.new(label: FLOOR, world: "jbuilder", kind: :constant, role: :floor, encoder: "stock", check: [:bytes, GEM],
                  note: "the controller loads the same records (same relation, to_a) into @posts, as the views' " \
                        "controller does, and renders the jbuilder gem's body of the endpoint as a constant String " \
                        "(render json: string): the time spent outside the view"),
    Contender.new(label: "floor: reads + constant String", world: "jbuilder", kind: :reads, role: :floor,
                  encoder: "stock", check: [:bytes, GEM], skip: { "app" => "the templates' own Ruby row is its reads" },
                  note: "the constant floor, plus reading every attribute the views read and post_url, " \
                        "without building JSON; cached: plus every post's cache key and version and one " \
                        "read_multi of the 100 entries (a JSON String each, written by the first request)"),
    Contender.new(label: URLS_FLOOR, world: "jbuilder", kind: :urls, role: :floor,
                  encoder: "stock", check: [:bytes, GEM],
                  skip: { "cached" => "a warm cached request calls no URL helper",
                          "app" => "the templates' own Ruby row has its reads" },
                  note: "the constant floor, plus post_url for every post (the app's URL helper, which index and " \
                        "nested call) and, for nested, the association readers that walk the tree (post.author, " \
                        "post.comments, comment.author): the part of the reads floor that a view layer reading " \
                        "attributes natively still runs in Ruby"),
    Contender.new(label: TEMPLATES_FLOOR, world: "jbuilder", kind: :templates, role: :floor,
                  encoder: "stock", check: [:bytes, GEM], skip: { "cached" => "a warm cached request runs no partial" },
                  note: "the constant floor, plus the endpoint's view and every partial it renders run as their " \
                        "compiled methods with their locals and a json whose every call does nothing but run the " \
                        "partials (kit/views_app/bench/controllers.rb, NullJson): the templates' own Ruby, which any " \
                        "Jbuilder runs (their arguments and options, post_url, the association readers, " \
                        "ActionView's compiled-method prologue; app: its do blocks and the collection's block run), " \
                        "without building JSON"),
    Contender.new(label: OWN, world: "jbuilder", kind: :own, role: :floor,
                  encoder: "stock", check: [:bytes, GEM], skip: { "cached" => "a warm cached request computes no value" },
                  note: "the reference of issue 61: the constant floor, plus every value the endpoint's templates " \
                        "compute, computed in the action as the templates compute them (each attribute read, each " \
                        "association reader, post_url; app: the excerpts, the date's format, the author's initials, " \
                        "each comment's flag, the counts and the tags), kept in nothing: no template looked up or " \
                        "run, no json, no event (kit/views_app/bench/controllers.rb, OwnController). For index and " \
                        "nested these are the reads floor's values. A view layer's ms above the constant floor " \
                        "÷ this row's is what the view layer costs on top of the templates' own work"),
    Contender.new(label: OWN_EVENTS, world: "jbuilder", kind: :own_events, role: :floor,
                  encoder: "stock", check: [:bytes, GEM], skip: { "cached" => "a warm cached request computes no value" },
                  note: "the own-Ruby reference plus the render events ActionView sends for the endpoint's page, with " \
                        "their payloads, through ActiveSupport::Notifications.instrument (render_template, " \
                        "!render_template per template run, render_collection per collection, render_partial per single " \
                        "partial; kit/views_app/bench/own_events.rb): with nobody listening the same as the own-Ruby " \
                        "row, with listeners (--listen=debug|regex) plus the listeners' own work, which every view layer " \
                        "that keeps ActionView's events owes them"),
    Contender.new(label: "floor: constant String (jetson world)", world: "jetson", kind: :constant, role: :floor,
                  encoder: "stock", check: [:bytes, GEM],
                  note: "the floors again in the jetson world: they should match the jbuilder world's " \
                        "(same app, same records; only the view layer differs)"),
    Contender.new(label: "floor: reads + constant String (jetson world)", world: "jetson", kind: :reads,
                  role: :floor, encoder: "stock", check: [:bytes, GEM],
                  skip: { "app" => "the templates' own Ruby row is its reads" }),
    Contender.new(label: STORE_FLOOR, world: "jetson", kind: :store, role: :floor, encoder: "stock",
                  check: [:bytes, GEM],
                  skip: { "index" => "no cache is read", "nested" => "no cache is read", "app" => "no cache is read" },
                  note: "the constant floor, plus the store's own read_multi of the 100 entries the jetson world's " \
                        "cached view wrote, under the keys ActionView makes for posts/_post, expanded once per world " \
                        "and kept (kit/views_app/bench/controllers.rb, StoreController): the least a view layer " \
                        "pays to read the cached elements, without making their keys")
  ].freeze

  # A world process, driven one request at a time (World.perform's protocol).
  class WorldProcess < Kit::ChildProcess
    SCRIPT = File.expand_path("world.rb", __dir__)

    attr_reader :info

    # args: the script's (the world's name; bench/views/server.rb's puma
    # worlds give theirs).
    def initialize(name, yjit:, script: SCRIPT, args: [name])
      super(name, script, *args, yjit: yjit)
    end

    def wait_ready
      super
      @info = call(:info)
    end
  end
end
