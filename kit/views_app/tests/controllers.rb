# frozen_string_literal: true

# Controllers and routes of Kit::ViewsApp's tests setup (kit/views_app.rb),
# and the plain objects the cases assign beside the records.

# A collection that counts but has no size (the jbuilder gem wraps it in
# EnumerableCompat for ActionView).
class CountingList
  include Enumerable

  def initialize(items)
    @items = items
  end

  def each(&block)
    @items.each(&block)
  end
end

# A plain object with a partial path of its own (ActiveModel's naming and
# conversion), like the jbuilder gem's template tests' Racer.
class Badge
  extend ActiveModel::Naming
  include ActiveModel::Conversion

  attr_reader :id, :label

  def initialize(id, label)
    @id = id
    @label = label
  end

  def persisted?
    true
  end

  def cache_key
    "badge-#{id}"
  end
end

# The scaffold's controller: index and show render their .json.jbuilder views.
class PostsController < ActionController::Base
  def index
    @posts = Post.includes(:author, comments: :author).order(:id)
  end

  def show
    @post = Post.find(params[:id])
  end
end

# Renders app/views/cases/<name>.json.jbuilder with the same assigns for
# every case, so that a case is a view file and nothing else.
class CasesController < ActionController::Base
  # Parts of every fragment key before the view's own (ActionView puts them
  # in each cached collection element's key too): a String, and a record
  # whose cache_version joins the entries' versions.
  fragment_cache_key "cases"
  fragment_cache_key { @post }

  def show
    name = params[:name]
    dir = params[:dir] || "cases"
    raise ArgumentError, "bad case #{dir}/#{name}" unless /\A\w+\z/.match?(name) && %w[cases errors known].include?(dir)

    assign_records
    render template: "#{dir}/#{name}"
  end

  private

  def assign_records
    @post = Post.find(1)
    @other_post = Post.find(6)
    @posts = Post.order(:id)
    @posts_array = @posts.includes(:author, :comments).to_a
    @authors = Author.order(:id)
    @comments = Comment.order(:id)
    @counting = CountingList.new(@posts_array.first(3))
    @badges = [Badge.new(1, "gold <1>"), Badge.new(2, "silver & 2")]
    @empty = []
  end
end

# Renders views from a directory given by the request (the random view
# trees of random_test.rb, written per run), with CasesController's assigns.
class RandomController < CasesController
  def show
    prepend_view_path(request.get_header("views.dir"))
    assign_records
    render template: "random/#{params[:name]}"
  end
end

# The API-only controller the jbuilder Railtie makes render views: no
# `render` call (implicit rendering), and cache! in its views.
class ApiPostsController < ActionController::API
  def index
    @posts = Post.order(:id).limit(5)
  end

  def show
    @post = Post.find(params[:id])
  end
end

Kit::ViewsApp::Application.routes.draw do
  defaults format: :json do
    resources :posts, only: %i[index show]
    resources :api_posts, only: %i[index show]
    get "cases/:name" => "cases#show"
    get "errors/:name" => "cases#show", dir: "errors"
    get "known/:name" => "cases#show", dir: "known"
    get "random/:name" => "random#show"
  end
end
