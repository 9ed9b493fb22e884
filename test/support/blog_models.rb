# frozen_string_literal: true

require "active_record"

# The collection benchmark's schema (posts, comments, users; a post has many
# comments and many commenters through them) plus a model with one column of
# every common type, in a sqlite3 in-memory database. Shared by the Rails
# tests and bench/rails.rb.
module BlogModels
  module_function

  def connect
    return if ActiveRecord::Base.connected? && ActiveRecord::Base.connection.table_exists?(:posts)

    ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: ":memory:")
    ActiveRecord::Migration.verbose = false
    ActiveRecord::Schema.define do
      create_table :users do |t|
        t.string :name
        t.timestamps
      end
      create_table :posts do |t|
        t.text :body
        t.timestamps
      end
      create_table :comments do |t|
        t.references :post
        t.references :commenter
        t.text :body
        t.timestamps
      end
      create_table :samples do |t|
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

  # 100 posts, each with 2 users (John#{i}, Jane#{i}) and 20 comments
  # (Comment1_#{i}_#{n} by John, Comment2_#{i}_#{n} by Jane, n in 0..9).
  def seed_collection(posts: 100)
    connect
    return if Post.count == posts

    [Comment, Post, User].each(&:delete_all)
    base = Time.utc(2024, 1, 1)
    posts.times do |i|
      post = Post.create!(body: "post #{i}", created_at: base + i, updated_at: base + i)
      john = User.create!(name: "John#{i}")
      jane = User.create!(name: "Jane#{i}")
      10.times do |n|
        post.comments.create!(commenter: john, body: "Comment1_#{i}_#{n}")
        post.comments.create!(commenter: jane, body: "Comment2_#{i}_#{n}")
      end
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
