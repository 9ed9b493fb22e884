# frozen_string_literal: true

require "active_record"

module Kit
  # The collection of the serializer projects' benchmark: posts, comments and
  # users (a post has many comments and many commenters through them), plus
  # a model with one column of every common type (samples). The Rails tests
  # and bench/rails.rb and bench/builder.rb use it in a sqlite3 in-memory
  # database (connect, seed); bench/records.rb writes the same rows with
  # fixed ids and times into each database it runs on (schema!,
  # insert_fixed!).
  module Collection
    POSTS = 100
    COMMENTS_PER_POST = 20
    BASE = Time.utc(2024, 1, 1)

    module_function

    def connect
      return if ActiveRecord::Base.connected? && ActiveRecord::Base.connection.table_exists?(:posts)

      ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: ":memory:")
      schema!
    end

    def schema!
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
        create_table :samples, force: true do |t|
          t.string :title
          t.integer :count
          t.bigint :big
          t.float :ratio
          t.decimal :price, precision: 12, scale: 4
          t.boolean :flag
          t.date :day
          t.datetime :at, precision: 6
          t.time :clock
          t.json :data
          t.timestamps
        end
      end
    end

    # `posts` posts, each with 2 users (John#{i}, Jane#{i}) and 20 comments
    # (Comment1_#{i}_#{n} by John, Comment2_#{i}_#{n} by Jane, n in 0..9),
    # written by ActiveRecord: the posts at fixed times, the users and
    # comments stamped now.
    def seed(posts: POSTS)
      connect
      return if Post.count == posts

      [Comment, Post, User].each(&:delete_all)
      posts.times do |i|
        post = Post.create!(body: "post #{i}", created_at: BASE + i, updated_at: BASE + i)
        john = User.create!(name: "John#{i}")
        jane = User.create!(name: "Jane#{i}")
        10.times do |n|
          post.comments.create!(commenter: john, body: "Comment1_#{i}_#{n}")
          post.comments.create!(commenter: jane, body: "Comment2_#{i}_#{n}")
        end
      end
    end

    # seed's rows with fixed ids and fixed times (microseconds included, as
    # Rails' precision-6 timestamps hold), so that two databases hold the
    # same rows and their outputs can be compared byte for byte:
    # [users, posts, comments].
    def fixed_rows
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

    # A fixed instant per row: seconds apart, with a microsecond part.
    def stamp(seconds) = BASE + seconds + Rational((seconds * 7919) % 1_000_000, 1_000_000)

    # fixed_rows into the connected database, which then looks as one that
    # has lived a while: sequences past the ids, fresh statistics.
    def insert_fixed!
      users, posts, comments = fixed_rows
      User.insert_all!(users)
      Post.insert_all!(posts)
      Comment.insert_all!(comments)
      conn = ActiveRecord::Base.connection
      %w[users posts comments].each { |t| conn.reset_pk_sequence!(t) } if conn.respond_to?(:reset_pk_sequence!)
      conn.execute("ANALYZE") if conn.adapter_name.match?(/postgres/i)
    end
  end
end

class User < ActiveRecord::Base
  has_many :comments, foreign_key: :commenter_id
end

class Comment < ActiveRecord::Base
  belongs_to :post
  belongs_to :commenter, class_name: "User"

  def summary
    "#{body[0, 8]} <by> #{commenter_id}"
  end
end

class Post < ActiveRecord::Base
  has_many :comments
  has_many :commenters, through: :comments

  def commenter_names
    commenters.map(&:name)
  end
end

class Sample < ActiveRecord::Base; end
