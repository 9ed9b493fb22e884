# frozen_string_literal: true

# Reference of bench/views.rb --listen=debug|regex: the templates' own Ruby
# (OwnController's values) plus the render events ActionView sends for the
# endpoint's page, with their payloads, through
# ActiveSupport::Notifications.instrument: render_template and
# !render_template for the view, render_collection for each collection,
# !render_template for each partial run, render_partial (its cache_hit set
# afterwards) for each single partial. Nothing is looked up, run or built.
# With nobody listening this is OwnController; with listeners it is what
# any view layer that keeps ActionView's events owes them (the listeners'
# own work: log lines formatted and written, an agent's timings), so a view
# layer above it is what its own rendering costs besides.
class OwnEventsController < OwnController
  VIEW_ROOT = File.expand_path("views/jbuilder", __dir__)

  def index
    @posts = Kit::ViewsApp::Bench::RELATIONS["index"].call
    page("posts/index") { collection("posts/_post", @posts) { |post| post_values(post) } }
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("index")
  end

  def nested
    @posts = Kit::ViewsApp::Bench::RELATIONS["nested"].call
    page("posts/nested") do
      collection("posts/_nested_post", @posts) do |post|
        post_values(post)
        single("authors/_author", :author, post.author) { author_values(post.author) }
        collection("comments/_comment", post.comments) do |comment|
          comment.id
          comment.body
          comment.created_at
          single("authors/_author", :author, comment.author) { author_values(comment.author) }
        end
      end
    end
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("nested")
  end

  def app
    @posts = Kit::ViewsApp::Bench::RELATIONS["app"].call
    page("posts/app") { collection("posts/_row", @posts) { |post| row_values(post) } }
    render json: Kit::ViewsApp::Bench::FLOOR_BODIES.fetch("app")
  end

  private

  def identifier(virtual_path) = "#{VIEW_ROOT}/#{virtual_path}.json.jbuilder"

  def notify(name, payload, &block) = ActiveSupport::Notifications.instrument(name, payload, &block)

  # A template's run (Template#render's event).
  def run(virtual_path, &block)
    notify("!render_template.action_view", { virtual_path: virtual_path, identifier: identifier(virtual_path) }, &block)
  end

  def page(virtual_path, &block)
    notify("render_template.action_view", { identifier: identifier(virtual_path), layout: nil }) do
      run(virtual_path, &block)
    end
  end

  # Loaded first, as ActionView's collection renderer counts a loaded one.
  def collection(virtual_path, objects)
    objects = objects.to_a
    notify("render_collection.action_view", { identifier: identifier(virtual_path), layout: nil,
                                              count: objects.size }) do
      objects.each { |object| run(virtual_path) { yield object } }
    end
  end

  def single(virtual_path, as, object, &block)
    payload = { identifier: identifier(virtual_path), layout: nil, locals: { as => object, json: nil } }
    notify("render_partial.action_view", payload) do
      run(virtual_path, &block)
      payload[:cache_hit] = view_renderer_cache_hits[virtual_path]
    end
  end

  def view_renderer_cache_hits = (@view_renderer_cache_hits ||= view_context.view_renderer.cache_hits)
end
