# frozen_string_literal: true

# The Rails app of the Jbuilder views tests (test/rails/views/): its views
# are under test/rails/views/app/views, rendered once by the jbuilder gem (in
# a child process, test/support/views_oracle.rb) and once by Jetson (in the
# test process), through Rack requests, with the same records.
#
#   ViewsApp.boot(:jetson)    # `require "jetson/jbuilder"` after Rails
#   ViewsApp.boot(:jbuilder)  # `require "jbuilder"`: the real gem
#
# A process boots one world: both define ::Jbuilder and JbuilderTemplate.

require "rails"
require "active_record/railtie"
require "action_controller/railtie"
require "action_view/railtie"
require "logger"
require_relative "stock_encoder_json3"

module ViewsApp
  ROOT = File.expand_path("../rails/views/app", __dir__)

  class << self
    attr_reader :world

    def boot(world)
      raise ArgumentError, "world: :jetson or :jbuilder" unless %i[jetson jbuilder].include?(world)
      raise "ViewsApp is already booted as #{@world}" if @world

      @world = world
      # Bundler's `require:` for either gem, after Rails as Bundler.require does.
      world == :jetson ? require("jetson/jbuilder") : require("jbuilder")
      define_application
      ::ViewsApp::Application.initialize!
      StockEncoderJson3.repair_if_refused # ActiveSupport 8.0 under json 3 (see there)
      require_relative "views_app/models"
      require_relative "views_app/controllers"
      Schema.load
      Seeds.load
      check_world
    end

    private

    def define_application
      app = Class.new(::Rails::Application) do
        config.root = ROOT
        config.eager_load = false
        config.enable_reloading = false
        config.consider_all_requests_local = false
        config.action_dispatch.show_exceptions = :none # errors reach the caller as raised
        config.action_controller.perform_caching = true
        config.action_view.cache_template_loading = true
        config.cache_store = :memory_store
        # At :info, as in production: a :debug logger makes ActionView's log
        # subscriber listen to render_partial.action_view, which sends every
        # partial through the instrumented path (the scenarios with events
        # cover that one).
        config.logger = ::Logger.new(nil)
        config.log_level = :info
        config.secret_key_base = "views"
        config.active_support.deprecation = :silence
        config.time_zone = "UTC"
        config.hosts.clear
        config.paths["app/views"] = File.join(ROOT, "views")
        config.paths["config/routes.rb"] = []
        config.paths["config/initializers"] = []
        config.paths["config/environments"] = []
      end
      const_set(:Application, app)
      # No config/database.yml: ActiveRecord's railtie takes the URL.
      ENV["DATABASE_URL"] = "sqlite3::memory:"
    end

    def check_world
      origin = ::JbuilderTemplate.instance_method(:partial!).source_location.first
      jetson = origin.include?("/lib/jetson/")
      return if jetson == (@world == :jetson)

      abort "ViewsApp: JbuilderTemplate comes from #{origin}, not from the #{@world} world"
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
          t.text :bio
          t.date :born_on
          t.float :score
          t.timestamps precision: 6
        end
        create_table :posts do |t|
          t.references :author
          t.string :title
          t.text :body
          t.datetime :published_at, precision: 6
          t.decimal :rating, precision: 6, scale: 2
          t.boolean :draft
          t.timestamps precision: 6
        end
        create_table :comments do |t|
          t.references :post
          t.references :author
          t.text :body
          t.string :mood
          t.timestamps precision: 6
        end
      end
    end
  end

  # Deterministic records: every value is given (no Time.now), with text
  # that ActiveSupport escapes (<, >, &, U+2028), non-ASCII text, nils for
  # ignore_nil!, fractional seconds for time_precision, and posts with no
  # comments for empty collections.
  module Seeds
    NAMES = ["Ada <Lovelace>", "Grace & Hopper", "Émilie du Châtelet", "Alan\u2028Turing"].freeze
    MOODS = ["happy", nil, "😀 sunny", "<sad>"].freeze

    module_function

    def load
      base = Time.utc(2024, 3, 9, 8, 30, 15, 123_456)
      authors = NAMES.each_with_index.map do |name, i|
        Author.create!(name: name, email: i.even? ? "a#{i}@example.com" : nil, bio: i == 2 ? nil : "bio #{i}",
                       born_on: Date.new(1815 + (i * 30), 12, 10), score: i * 1.25,
                       created_at: base, updated_at: base + i)
      end
      12.times do |i|
        post = Post.create!(author: authors[i % authors.size], title: "Post #{i} <#{i}>", body: "Body & more #{i}",
                            published_at: i == 3 ? nil : base + (i * 3600.5), rating: BigDecimal("#{i}.25"),
                            draft: i.odd?, created_at: base + i, updated_at: base + i + 0.5)
        (i % 4).times do |n|
          Comment.create!(post: post, author: authors[(i + n) % authors.size], body: "Comment #{i}.#{n} \u2028 ok",
                          mood: MOODS[(i + n) % MOODS.size], created_at: base + (i * 60) + n,
                          updated_at: base + (i * 60) + n)
        end
      end
    end
  end
end
