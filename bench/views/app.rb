# frozen_string_literal: true

# The Rails app of bench/views.rb: models, schema, seeds, controllers and
# routes, booted in a world process (bench/views/world.rb) with ONE view
# layer loaded:
#
#   jbuilder  `require "jbuilder"` (the gem); .json.jbuilder views
#   jetson    `require "jetson/jbuilder"` + "jetson/rails"; the same .json.jbuilder views
#   props     `require "props_template"`; .json.props views
#   jb        `require "jb"`; .jb views
#
# Every world boots the same code with the same configuration and the same
# records (fixed seeds and timestamps), so that the only difference between
# two worlds is the view layer. A layer gets a process of its own because
# jbuilder and jetson/jbuilder both define ::Jbuilder, and props_template and
# jb prepend patches to ActionView's renderers that every template render
# then goes through (props_template's defines a singleton method on the view
# of every request and looks each single partial up twice): loaded next to
# the jbuilder gem they would slow it down.

require "rails"
require "active_record/railtie"
require "action_controller/railtie"
require "action_view/railtie"
require "logger"
require_relative "database"

module BenchViews
  ROOT = __dir__
  WORLDS = %w[jbuilder jetson props jb].freeze
  # Where each world's views are (the jetson world renders the jbuilder ones).
  VIEW_DIRS = { "jbuilder" => "jbuilder", "jetson" => "jbuilder", "props" => "props", "jb" => "jb" }.freeze

  class << self
    attr_reader :world

    def boot(world)
      raise ArgumentError, "world: one of #{WORLDS.join(', ')}" unless WORLDS.include?(world)

      @world = world
      # After Rails, as Bundler.require would.
      case world
      when "jbuilder" then require "jbuilder"
      when "jetson" then require "jetson/jbuilder"; require "jetson/rails"
      when "props" then require "props_template"
      when "jb" then require "jb"
      end
      define_application(File.join(ROOT, "app/views", VIEW_DIRS.fetch(world)))
      Application.initialize!
      require_relative "app/models"
      require_relative "app/controllers"
      Schema.load
      Seeds.load
    end

    private

    def define_application(views)
      app = Class.new(::Rails::Application) do
        # A new app of the loaded Rails version (8.1: U+2028/U+2029 left
        # unescaped, render json: with escape: false).
        config.load_defaults "#{::Rails::VERSION::MAJOR}.#{::Rails::VERSION::MINOR}"
        config.root = ROOT
        config.eager_load = true
        config.enable_reloading = false
        config.consider_all_requests_local = false
        config.action_dispatch.show_exceptions = :none # an error reaches the bench, not a 500 page
        config.public_file_server.enabled = false      # no file lookup per request (as behind a web server)
        config.action_controller.perform_caching = true
        config.action_view.cache_template_loading = true
        config.cache_store = :memory_store
        # Same logger everywhere; at :info the render and SQL events are not
        # formatted (their log subscribers skip :debug events).
        config.logger = ::Logger.new(nil, level: :info)
        config.log_level = :info
        config.secret_key_base = "bench-views"
        config.active_support.deprecation = :silence
        config.time_zone = "UTC"
        config.hosts.clear
        config.paths["app/views"] = views
        config.paths["config/routes.rb"] = []
        config.paths["config/initializers"] = []
        config.paths["config/environments"] = []
        # The app's Ruby files are required by BenchViews.boot, not autoloaded.
        %w[app app/models app/controllers app/helpers app/mailers app/channels lib vendor].each { |p| config.paths[p] = [] }
        # bench/views.rb --oj: what apps that keep Oj have in config/initializers.
        if ENV["JETSON_VIEWS_OJ"]
          initializer("bench.oj_optimize_rails") do
            require "oj"
            Oj.optimize_rails
          end
        end
      end
      const_set(:Application, app)
      ENV["DATABASE_URL"] = Database.url(@world) # no config/database.yml; sqlite3 :memory: by default
    end
  end

  module Schema
    module_function

    def load
      ::ActiveRecord::Migration.verbose = false
      ::ActiveRecord::Schema.define do
        create_table :authors do |t|
          t.string :name
          t.string :email
          t.timestamps precision: 6
        end
        create_table :posts do |t|
          t.references :author
          t.string :title
          t.text :body
          t.datetime :published_at, precision: 6
          t.timestamps precision: 6
        end
        create_table :comments do |t|
          t.references :post
          t.references :author
          t.text :body
          t.timestamps precision: 6
        end
      end
    end
  end

  # 100 posts by 20 authors, 10 comments per post, each comment by one of
  # the authors. Every value comes from a seeded Random and a fixed base time
  # (microseconds included, which ActiveSupport prints to 3 digits), so both
  # worlds hold the same rows. Text is mostly ASCII, with the occasional
  # character that ActiveSupport escapes (&, <, >) and some non-ASCII.
  module Seeds
    WORDS = %w[json rails view partial cache render fast query index post comment author the a of and to in
               with for on is that by this & <b> café naïve über déjà].freeze

    module_function

    def text(rng, words) = Array.new(words) { WORDS.sample(random: rng) }.join(" ")

    def load
      rng = Random.new(2024)
      base = Time.utc(2024, 3, 9, 8, 30, 15, 123_456)
      authors = Array.new(20) do |i|
        Author.create!(name: "Author #{i} #{text(rng, 2)}", email: "author#{i}@example.com",
                       created_at: base + i, updated_at: base + i + 0.25)
      end
      100.times do |i|
        at = base + (i * 3600) + 0.5
        post = Post.create!(author: authors[i % 20], title: "Post #{i}: #{text(rng, 5)}", body: text(rng, 60),
                            published_at: at + 60.123456, created_at: at, updated_at: at + 30.5)
        10.times do |n|
          Comment.create!(post: post, author: authors[rng.rand(20)], body: text(rng, rng.rand(8..24)),
                          created_at: at + (n * 61.75), updated_at: at + (n * 61.75) + 1)
        end
      end
    end
  end
end
