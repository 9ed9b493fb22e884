# frozen_string_literal: true

require "minitest/autorun"
require "jetson/jbuilder"
require_relative "../../kit/collection"

# ActiveRecord relations and associations as collections: Jetson walks their
# records instead of calling their map when map, each and records are
# ActiveRecord's own. The output must be what the general path (the same
# records as an Array) gives, and a relation that changes its iteration must
# be iterated its own way.
class JbuilderActiveRecordTest < Minitest::Test
  def setup
    Kit::Collection.seed(posts: 5)
  end

  def render(posts, comments)
    Jbuilder.encode do |json|
      json.array! posts do |post|
        json.id post.id
        json.comments comments.call(post) do |comment|
          json.(comment, :id, :body)
        end
      end
    end
  end

  def test_associations_give_what_their_records_give
    posts = Post.includes(:comments).order(:id).to_a
    expected = render(posts.map(&:itself), ->(post) { post.comments.to_a })
    assert_equal expected, render(posts, ->(post) { post.comments })
    assert_equal expected, render(Post.includes(:comments).order(:id), ->(post) { post.comments })
    assert_equal 20, JSON.parse(expected).first["comments"].size
  end

  def test_a_relation_that_iterates_its_own_way_is_asked
    only_first = Module.new do
      def each(&block)
        records.first(1).each(&block)
      end

      def map(&block)
        records.first(1).map(&block)
      end
    end
    posts = Post.order(:id).extending(only_first)
    out = Jbuilder.encode { |json| json.array!(posts) { |post| json.id post.id } }
    assert_equal [{ "id" => Post.order(:id).first.id }], JSON.parse(out)
  end

  def test_a_relation_is_loaded_once
    queries = 0
    counter = ->(*, payload) { queries += 1 unless payload[:name] == "SCHEMA" }
    posts = Post.order(:id).limit(3)
    ActiveSupport::Notifications.subscribed(counter, "sql.active_record") do
      Jbuilder.encode { |json| json.array!(posts) { |post| json.id post.id } }
    end
    assert_equal 1, queries
  end
end
