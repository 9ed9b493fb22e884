# frozen_string_literal: true

require "test_helper"
require "timeout"
require "objspace"
require "support/views_diff"

# Faults in Jbuilder views: 16 threads rendering the same templates (one
# compiled template, one fragment cache) at once, and renders interrupted
# by Timeout half-way through a collection of partials or a cached
# collection. Each thread's bytes are those of a single render, which are
# the jbuilder gem's; after an interrupt the views and the cache go on.
#
# Threads render through the controller's renderer with records loaded
# beforehand: the app's database is SQLite in memory, one per connection,
# and a thread would get a connection of its own.
class ViewsFaultsTest < Minitest::Test
  include ViewsDiff

  # The threads' cached collection is one whose partial reads no counter:
  # ActionView renders a cached collection's misses as a collection of
  # their own, so post_counter and post_iteration count misses only, and
  # which items miss depends on what other threads have written by then.
  # A store's read_multi is not atomic against another thread's write_multi
  # (MemoryStore reads key by key), so a render can see the last item as a
  # hit and the others as misses, and number them 0 to 10 of 11, as the
  # jbuilder gem does on the same cache contents.
  TEMPLATES = %w[nested_partials cached_collection_no_counters cache_block partial_collection key_collection
                 merge_partial_results array_partial_enumerable mutating_collection reentrant_blocks].freeze

  def assigns
    @assigns ||= begin
      controller = CasesController.new
      controller.send(:assign_records)
      loaded = controller.view_assigns
      loaded["posts_array"] = Post.includes(:author, comments: :author).order(:id).to_a
      loaded["comments"] = Comment.includes(:author).order(:id).to_a
      loaded
    end
  end

  def render(name, with = assigns)
    CasesController.render(template: "cases/#{name}", assigns: with, formats: [:json])
  end

  # What a request gives for each template, checked against the jbuilder
  # gem, and what the renderer gives single-threaded: the same bytes.
  def expected_bodies
    _, jetson = assert_same_views({ requests: TEMPLATES.map { |name| "/cases/#{name}" } })
    TEMPLATES.zip(jetson[:outcomes]).to_h do |name, outcome|
      assert_equal 200, outcome[:status], "#{name}: #{outcome[:error].inspect}"
      assert_equal outcome[:body], render(name), name
      [name, outcome[:body]]
    end
  end

  def test_sixteen_threads_render_the_same_templates
    expected = expected_bodies
    Rails.cache.clear
    results = Array.new(16) do |t|
      Thread.new do
        Array.new(6) { |round| TEMPLATES.rotate(t + round).to_h { |name| [name, render(name)] } }
      end
    end.map(&:value)
    results.each_with_index do |rounds, t|
      rounds.each { |bodies| TEMPLATES.each { |name| assert_equal expected[name], bodies[name], "thread #{t}: #{name}" } }
    end
  end

  # Records whose title gives up the GVL: a Timeout's thread needs it to
  # raise, and a render that never gives it up is interrupted only at
  # Ruby's next thread switch (100 ms), with the jbuilder gem as with Jetson.
  module PassingTitle
    def title
      Thread.pass
      super
    end
  end

  # Collections long enough that a render takes tens of milliseconds.
  def big_assigns
    posts = assigns["posts_array"].map { |post| post.clone.extend(PassingTitle) }
    assigns.merge("counting" => posts * 3000, "posts_array" => posts * 800)
  end

  def test_timeout_interrupts_a_render_and_the_views_go_on
    expected = expected_bodies
    big = big_assigns
    %w[array_partial_enumerable cached_collection_no_counters nested_partials].each do |name|
      Rails.cache.clear
      assert_raises(Timeout::Error, name) { Timeout.timeout(0.01) { render(name, big) } }
      # The cache holds what was written before the interrupt; a miss and
      # then a hit give the template's bytes.
      2.times { assert_equal expected[name], render(name), "#{name} after an interrupt" }
    end
  end

  def test_interrupted_renders_leave_nothing_behind
    big = big_assigns
    interrupted = lambda do
      Timeout.timeout(0.005) { render("array_partial_enumerable", big) }
    rescue Timeout::Error
      nil
    end
    # The first renders, each interrupted somewhere new, make what is made
    # once (a model's plan, ActionView's and Jbuilder's caches): 600 to 900
    # live objects over the first 30 under ASan, in no fixed amount (where
    # the interrupts fall), which a base taken after 3 counted as held.
    # After 30, 30 more hold none: what they leave is what a render leaks.
    30.times { interrupted.call }
    GC.start
    base = GC.stat(:heap_live_slots)
    base_bytes = ObjectSpace.memsize_of_all
    30.times { interrupted.call }
    GC.start
    assert_operator GC.stat(:heap_live_slots) - base, :<, 300, "live objects after 30 more interrupted renders"
    assert_operator ObjectSpace.memsize_of_all - base_bytes, :<, 256 * 1024, "bytes held after 30 more interrupted renders"
  end
end
