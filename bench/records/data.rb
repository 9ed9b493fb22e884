# frozen_string_literal: true

require "active_record"
require_relative "../../test/support/blog_models" # Post, Comment, User (not connected until we connect them)

module RecordsBench
  # The collection of the serializer projects' benchmark, with the values
  # test/support/blog_models.rb seeds (100 posts "post #{i}", each with two
  # users John#{i} and Jane#{i} and 20 comments Comment1_#{i}_#{n} by John,
  # Comment2_#{i}_#{n} by Jane, n in 0..9, in that order) and the same schema,
  # but written here with fixed ids and fixed timestamps (microseconds
  # included, as Rails' precision-6 timestamps hold): blog_models.rb stamps
  # users and comments with Time.now, and both databases must hold the same
  # rows so that their outputs can be compared byte for byte.
  module Data
    POSTS = 100
    COMMENTS_PER_POST = 20
    BASE = Time.utc(2024, 1, 1)

    module_function

    # As a Rails app with the default config.time_zone = "UTC": timestamps are
    # read as ActiveSupport::TimeWithZone (ActiveRecord's Railtie turns
    # time_zone_aware_attributes on). Set before any model loads its schema.
    def app_settings!
      Time.zone_default = Time.find_zone!("UTC")
      Time.zone = "UTC"
      ActiveRecord::Base.time_zone_aware_attributes = true
      ActiveRecord.default_timezone = :utc
      JetsonBench::RailsStock.apply_json_defaults! # a new app of this Rails version
    end

    def connect(config)
      ActiveRecord::Base.establish_connection(config)
      ActiveRecord::Base.connection.verify!
    end

    def create_schema!
      ActiveRecord::Migration.verbose = false
      ActiveRecord::Schema.define do
        create_table :users, force: true do |t|
          t.string :name
          t.timestamps
        end
        create_table :posts, force: true do |t|
          t.text :body
          t.timestamps
        end
        create_table :comments, force: true do |t|
          t.references :post
          t.references :commenter
          t.text :body
          t.timestamps
        end
      end
    end

    # A fixed instant per row: seconds apart, with a microsecond part.
    def stamp(seconds) = BASE + seconds + Rational((seconds * 7919) % 1_000_000, 1_000_000)

    def rows
      users = []
      posts = []
      comments = []
      POSTS.times do |i|
        t = i * 3600
        posts << { id: i + 1, body: "post #{i}", created_at: stamp(t), updated_at: stamp(t + 60) }
        john = 2 * i + 1
        jane = 2 * i + 2
        users << { id: john, name: "John#{i}", created_at: stamp(t + 1), updated_at: stamp(t + 1) }
        users << { id: jane, name: "Jane#{i}", created_at: stamp(t + 2), updated_at: stamp(t + 2) }
        10.times do |n|
          [[john, "Comment1_#{i}_#{n}"], [jane, "Comment2_#{i}_#{n}"]].each do |commenter, body|
            k = comments.size % COMMENTS_PER_POST
            comments << { id: comments.size + 1, post_id: i + 1, commenter_id: commenter, body: body,
                          created_at: stamp(t + 10 + k), updated_at: stamp(t + 10 + k) }
          end
        end
      end
      [users, posts, comments]
    end

    def seed!
      users, posts, comments = rows
      User.insert_all!(users)
      Post.insert_all!(posts)
      Comment.insert_all!(comments)
      # Explicit ids leave PostgreSQL's sequences behind; nothing inserts
      # later, but a consistent database is cheap.
      conn = ActiveRecord::Base.connection
      %w[users posts comments].each { |t| conn.reset_pk_sequence!(t) } if conn.respond_to?(:reset_pk_sequence!)
      # Fresh statistics, as a database that has lived a while has them.
      conn.execute("ANALYZE") if conn.adapter_name.match?(/postgres/i)
      counts
    end

    def counts = { users: User.count, posts: Post.count, comments: Comment.count }

    # "Loaded once": every attribute of every loaded record read (cast and
    # kept by its Attribute), as records are after an app has used them.
    def read_all(value)
      records = value.respond_to?(:to_ary) ? value.to_ary : value.to_a
      records.each do |r|
        r.attributes
        r.class.reflect_on_all_associations.each do |reflection|
          association = r.association(reflection.name)
          Array(association.target).each(&:attributes) if association.loaded?
        end
      end
      value
    end
  end
end

# Post#to_builder, the form (a) of the Jbuilder cases: ::Jbuilder is the
# jbuilder gem's or jetson/jbuilder's, whichever the world loaded.
class Post
  def to_builder
    Jbuilder.new { |j| j.(self, :id, :body, :commenter_names, :comments) }
  end
end
