# frozen_string_literal: true

require_relative "rails_app"

module Kit
  # The Jbuilder views app: authors, posts and comments (a post by an
  # author, with comments each by an author) rendered through views, booted
  # in a process with one view layer (Kit::RailsApp::WORLDS). Two setups run
  # on the same models, schema and application:
  #
  #   Kit::ViewsApp.boot("jetson", :tests)    # `require "jetson/jbuilder"` after Rails
  #   Kit::ViewsApp.boot("jbuilder", :bench)  # `require "jbuilder"`: the gem
  #
  # tests  the Jbuilder views tests (test/rails/views/): the view cases under
  #        views_app/tests/views, rendered once by the jbuilder gem (in a
  #        child process, test/support/views_oracle.rb) and once by Jetson (in
  #        the test process), through Rack requests, with the same records: a
  #        few of each, with a column of every type a view writes. The
  #        frameworks' own defaults (no load_defaults: U+2028 escaped, as by
  #        every Rails before 8.1; a scenario sets a newer default where it
  #        tests it, test/support/views_runner.rb); no eager loading.
  # bench  bench/views.rb: four endpoints (views_app/bench/controllers.rb)
  #        and their floors, in the views of each layer (views_app/bench/views:
  #        jbuilder, props, jb; the jetson world renders the jbuilder ones),
  #        on 100 posts with 10 comments each. A new app of the loaded Rails
  #        (load_defaults: 8.1 leaves U+2028/U+2029 unescaped, render json:
  #        with escape: false), eager loading as in production; the jetson
  #        world also loads jetson/rails (Jetson::RailsEncoder for render
  #        json:).
  #
  # Every world of a setup boots the same code with the same configuration
  # and the same records (fixed values and timestamps), so that the only
  # difference between two worlds is the view layer.
  module ViewsApp
    DIR = File.join(__dir__, "views_app")

    Setup = Struct.new(:worlds, :load_defaults, :eager_load, :typed_columns, :views_by_world, :jetson_also,
                       keyword_init: true) do
      def worlds?(world) = worlds.include?(world)
    end

    SETUPS = {
      tests: Setup.new(worlds: %w[jetson jbuilder], load_defaults: false, eager_load: false, typed_columns: true,
                       views_by_world: false, jetson_also: []),
      bench: Setup.new(worlds: %w[jbuilder jetson props jb], load_defaults: true, eager_load: true,
                       typed_columns: false, views_by_world: true, jetson_also: %w[jetson/rails])
    }.freeze

    module Schema
      module_function

      # typed_columns: the tests' columns of the types a view writes beyond
      # strings and times (text that may be nil, a date, a float, a decimal,
      # a boolean), in the tables' column order.
      def load(typed_columns:)
        ::ActiveRecord::Migration.verbose = false
        ::ActiveRecord::Schema.define do
          create_table :authors do |t|
            t.string :name
            t.string :email
            if typed_columns
              t.text :bio
              t.date :born_on
              t.float :score
            end
            t.timestamps precision: 6
          end
          create_table :posts do |t|
            t.references :author
            t.string :title
            t.text :body
            t.datetime :published_at, precision: 6
            if typed_columns
              t.decimal :rating, precision: 6, scale: 2
              t.boolean :draft
            end
            t.timestamps precision: 6
          end
          create_table :comments do |t|
            t.references :post
            t.references :author
            t.text :body
            t.string :mood if typed_columns
            t.timestamps precision: 6
          end
        end
      end
    end

    class << self
      # The booted world ("jetson", ...) and setup (:tests or :bench).
      attr_reader :world, :setup

      # database_url: the bench's --database (bench/views/database.rb);
      # oj_optimize_rails: bench/views.rb --oj.
      def boot(world, setup, database_url: "sqlite3::memory:", oj_optimize_rails: false)
        world = world.to_s
        config = SETUPS.fetch(setup)
        raise ArgumentError, "#{setup}: world one of #{config.worlds.join(', ')}" unless config.worlds?(world)
        raise "Kit::ViewsApp is already booted as #{@world}" if @world

        @world = world
        @setup = setup
        RailsApp.require_world(world, also: world == "jetson" ? config.jetson_also : [])
        RailsApp.define(self, root: root, views: views, secret: "views", load_defaults: config.load_defaults,
                              eager_load: config.eager_load, database_url: database_url,
                              oj_optimize_rails: oj_optimize_rails)
        RailsApp.initialize!(Application)
        require_relative "views_app/models"
        require_relative "views_app/#{setup}/controllers"
        require_relative "views_app/seeds"
        Schema.load(typed_columns: config.typed_columns)
        Seeds.public_send(setup)
        RailsApp.check_world("Kit::ViewsApp", world)
      end

      # The setup's directory (Rails.root): its views are under views/.
      def root = File.join(DIR, @setup.to_s)

      # Where the booted world's views are (Rails' app/views).
      def views
        by_world = SETUPS.fetch(@setup).views_by_world
        File.join(root, "views", *(by_world ? [@world == "jetson" ? "jbuilder" : @world] : []))
      end
    end
  end
end
