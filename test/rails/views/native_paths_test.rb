# frozen_string_literal: true

require "test_helper"
require "support/views_diff"

# The native paths of Jbuilder views are taken on the loaded Rails, not just
# giving the right bytes through a Ruby fallback (which the differential
# tests cannot tell apart): partials run without ActionView::Base#_run's
# Ruby frame, collections render through the native element loop, a key's
# partial through its plan, cached collections and cache! blocks keep text
# written natively, and the document is written by the native writer.
# Each request is first compared with the jbuilder gem's bytes, then
# rendered again (warm, as a production request) with its calls counted.
class ViewsNativePathsTest < Minitest::Test
  include ViewsDiff

  WATCHED = %i[_run _encode attributes! to_json _render_elements inline_plan render_template _set_inline_partial
               _element_json _element_value _captured_json _captured_value _collection_fill _single_partial_plan
               _render_partial!].freeze

  # What `_run` the counts mean: ActionView's; the others are Jetson's.
  def calls(scenario)
    counts = Hash.new(0)
    trace = TracePoint.new(:call, :c_call) do |tp|
      next unless WATCHED.include?(tp.method_id)

      owner = tp.defined_class
      name = tp.method_id
      name = :"PartialRenderer##{name}" if name == :render_template && owner == ::Jetson::Views::PartialRenderer
      next if name == :render_template # ActionView's own renderers
      next if name == :_run && !owner.equal?(::ActionView::Base)

      counts[name] += 1
    end
    trace.enable { ViewsRunner.perform(scenario) }
    counts
  end

  def rails
    "ActionView #{ActionView.version}, #{ActiveSupport.json_encoder}"
  end

  def test_the_loaded_actionview_run_is_repeated_natively
    assert Jetson::Views::PartialRenderer::NATIVE_RUN, "#{rails}: ViewRunProbe refused ActionView::Base#_run"
  end

  # The probe answers for what _run does, not for a version: a _run that
  # does any part of it differently is refused.
  def test_the_probe_refuses_a_run_that_differs
    same = Class.new(ActionView::Base) { def _run(*args, **keywords, &block) = super }
    assert Jetson::Views::ViewRunProbe.native?(same), "a _run that calls ActionView's"

    variants = {
      "keeps @virtual_path" => proc do |method, template, locals, buffer, &block|
        @current_template = template
        @output_buffer = buffer
        public_send(method, locals, buffer, &block)
      end,
      "passes the locals as keywords" => proc do |method, template, locals, buffer, &block|
        saved = [@output_buffer, @virtual_path, @current_template]
        @current_template = template
        @output_buffer = buffer
        public_send(method, locals, buffer, **locals, &block)
      ensure
        @output_buffer, @virtual_path, @current_template = saved
      end,
      "restores nothing after a raise" => proc do |method, template, locals, buffer, &block|
        saved = [@output_buffer, @virtual_path, @current_template]
        @current_template = template
        @output_buffer = buffer
        result = public_send(method, locals, buffer, &block)
        @output_buffer, @virtual_path, @current_template = saved
        result
      end,
      "sets no @current_template" => proc do |method, _template, locals, buffer, &block|
        saved = [@output_buffer, @virtual_path, @current_template]
        @output_buffer = buffer
        public_send(method, locals, buffer, &block)
      ensure
        @output_buffer, @virtual_path, @current_template = saved
      end
    }
    variants.each do |label, body|
      klass = Class.new(ActionView::Base) { define_method(:_run, &body) }
      refute Jetson::Views::ViewRunProbe.native?(klass), label
    end
  end

  # Collections of partials and a key's partial per element: the partials'
  # methods are called natively (ActionView::Base#_run runs once per
  # request, for the view itself), elements through the native loop, the
  # author partial through its plan, once per render.
  def test_partials_render_natively
    requests = %w[/cases/nested_partials /cases/partial_collection /cases/key_object]
    assert_same_views({ requests: requests })
    counts = calls({ requests: requests })
    assert_equal requests.size, counts[:_run], "#{rails}: partials went through ActionView::Base#_run: #{counts}"
    assert_operator counts[:_render_elements], :>=, 2, "#{rails}: #{counts}"
    assert_equal 0, counts[:"PartialRenderer#render_template"], "#{rails}: #{counts}"
    # One plan per render and (partial, as:), not per element:
    # nested_partials' authors/author and comments/comment, key_object's
    # authors/author.
    assert_equal 3, counts[:inline_plan], "#{rails}: #{counts}"
    # Left to Ruby: the comments of each post (a collection under a key) and
    # key_object's `json.editor nil, partial:`.
    assert_equal Post.count + 1, counts[:_set_inline_partial], "#{rails}: #{counts}"
  end

  # `json.partial! "authors/author", author: post.author`, per element of a
  # loop and at the top, with locals as keywords, as `locals:` and as
  # `partial:`/`locals:`, and with none: the partial's method runs natively
  # from a plan made once per render and list of local names. The forms
  # that keep to Ruby: render options among the locals.
  def test_single_partials_with_locals_render_natively
    native = %w[/cases/nested_in_block /cases/partial_locals /cases/partial_options_locals
                /cases/only_jbuilder_partials /cases/partial_punning]
    assert_same_views({ requests: native })
    counts = calls({ requests: native })
    assert_equal native.size, counts[:_run], "#{rails}: partials went through ActionView::Base#_run: #{counts}"
    assert_equal 0, counts[:_render_partial!], "#{rails}: #{counts}"
    assert_equal 0, counts[:"PartialRenderer#render_template"], "#{rails}: #{counts}"
    assert_equal native.size, counts[:_single_partial_plan], "#{rails}: one plan per render: #{counts}"

    ruby = %w[/cases/partial_locals_option /cases/partial_formats /cases/partial_options_toplevel]
    assert_same_views({ requests: ruby })
    counts = calls({ requests: ruby })
    assert_equal ruby.size, counts[:_render_partial!], "#{rails}: #{counts}"
  end

  # Jetson::Rails.diagnostics counts what the calls above show: partials and
  # elements Jetson ran, none through Template#render. With a listener on
  # "!render_template.action_view" (as APM agents subscribe) they stay
  # native and emit the event themselves.
  def test_diagnostics_count_the_partials
    requests = %w[/cases/nested_partials /cases/partial_collection /cases/nested_in_block]
    ViewsRunner.perform({ requests: requests }) # warm
    [{}, { debug_events: true }, { events: true, debug_events: true }].each do |listeners|
      Jetson::Rails::Diagnostics.reset!
      ViewsRunner.perform({ requests: requests, **listeners })
      diagnostics = Jetson::Rails.diagnostics
      assert_equal 0, diagnostics[:partials][:ruby], "#{rails}, #{listeners}: #{diagnostics[:fallbacks]}"
      assert_operator diagnostics[:partials][:native], :>=, Post.count, "#{rails}, #{listeners}: #{diagnostics}"
      assert_equal 0, diagnostics[:records][:ruby], "#{rails}, #{listeners}: #{diagnostics[:fallbacks]}"
    end

    # A model's partial goes through the Ruby renderer, and Template#render
    # while something listens to the event it owes.
    Jetson::Rails::Diagnostics.reset!
    ViewsRunner.perform({ requests: %w[/cases/partial_model], debug_events: true })
    diagnostics = Jetson::Rails.diagnostics
    assert_equal [:listener], diagnostics[:fallbacks].select { _1[:kind] == :partials }.map { _1[:reason] }.uniq
    assert_match(/listen to !render_template\.action_view, owed by a partial the Ruby renderer runs/,
                 diagnostics[:fallbacks].first[:why])
  ensure
    Jetson::Rails::Diagnostics.reset!
  end

  # With listeners on every render event (render_partial, render_collection,
  # !render_template: what New Relic's agent subscribes to), the partials run
  # natively and emit the events, with the payloads, of the jbuilder gem's
  # renders.
  def test_partials_under_listeners_stay_native_with_the_gems_events
    native = %w[/cases/nested_partials /cases/key_object /cases/nested_in_block /cases/partial_locals
                /cases/partial_options_locals]
    others = %w[/cases/partial_collection /cases/cached_collection /cases/partial_formats]
    assert_same_views({ requests: native + others + others, events: true, debug_events: true })
    counts = calls({ requests: native, events: true, debug_events: true })
    assert_equal native.size, counts[:_run], "#{rails}: partials went through ActionView::Base#_run: #{counts}"
    assert_equal 0, counts[:"PartialRenderer#render_template"], "#{rails}: #{counts}"
    assert_equal 0, counts[:_render_partial!], "#{rails}: #{counts}"
  end

  # The document's text is the native writer's (target!), not the Hash
  # Jbuilder would hold encoded by to_json.
  def test_documents_are_written_natively
    _, counts = assert_written_natively({ requests: %w[/cases/nested_partials /cases/key_object /cases/ignore_nil] })
    assert_equal 0, counts[:to_json], "#{rails}: #{counts}"
  end

  # The same under ActiveSupport 8.1's escape_js_separators_in_json = false
  # (what load_defaults "8.1" sets), where the setting exists.
  def test_documents_are_written_natively_with_js_separators_unescaped
    skip "#{rails}: no escape_js_separators_in_json" unless ActiveSupport::JSON::Encoding.respond_to?(:escape_js_separators_in_json)

    scenario = { requests: %w[/cases/nested_partials /cases/key_object], settings: { escape_js_separators_in_json: false } }
    gem_result, = assert_written_natively(scenario)
    assert(gem_result[:outcomes].any? { |outcome| outcome[:body].include?("\u2028") }, "the seeds hold U+2028")
  end

  # The scenario's views give the jbuilder gem's bytes, and each request's
  # document is written by target!'s native writer (no attributes!).
  def assert_written_natively(scenario)
    gem_result, = assert_same_views(scenario)
    counts = calls(scenario)
    assert_equal scenario[:requests].size, counts[:_encode], "#{rails}: target! did not write natively: #{counts}"
    assert_equal 0, counts[:attributes!], "#{rails}: #{counts}"
    [gem_result, counts]
  end

  # cached: true collections: a miss keeps each element's text written
  # natively (the elements are rendered one by one, their text taken after
  # each); a hit pastes the texts with no partial run at all.
  def test_cached_collections_render_natively
    request = "/cases/cached_collection"
    assert_same_views({ requests: [request, request] })
    miss = calls({ requests: [request] })
    assert_equal 12, miss[:_element_json], "#{rails}: element texts not written natively: #{miss}"
    assert_equal 0, miss[:_element_value], "#{rails}: #{miss}"
    assert_equal 0, miss[:to_json], "#{rails}: #{miss}"
    hit = calls({ requests: [request], store: [:keep] })
    assert_equal 1, hit[:_collection_fill], "#{rails}: #{hit}"
    assert_equal 0, hit[:_render_elements], "#{rails}: the hit rendered elements: #{hit}"
    assert_equal 1, hit[:_run], "#{rails}: #{hit}"
  end

  # cache! blocks: the fragment's text is written natively.
  def test_cache_blocks_write_natively
    requests = %w[/cases/cache_block /cases/cache_nested]
    assert_same_views({ requests: requests })
    counts = calls({ requests: requests })
    assert_operator counts[:_captured_json], :>=, 2, "#{rails}: fragments not written natively: #{counts}"
    assert_equal 0, counts[:_captured_value], "#{rails}: #{counts}"
    assert_equal 0, counts[:to_json], "#{rails}: #{counts}"
  end
end
