# frozen_string_literal: true

require "test_helper"
require "support/views_diff"

# Every view of the test app (kit/views_app/tests/views/cases/*.json.jbuilder
# and the scaffold's posts views) rendered through Rack by the jbuilder gem
# and by Jetson: the same status, Content-Type and bytes, the same errors, and
# the same ActionView and fragment-cache events. Each is requested twice, so
# that caching views are seen missing and then hitting.
class ViewsTemplatesTest < Minitest::Test
  include ViewsDiff

  CASES = ViewsDiff.views_in("cases")
  SCAFFOLD = %w[/posts /posts/3 /api_posts /api_posts/2].freeze
  PATHS = (SCAFFOLD + CASES.map { |name| "/cases/#{name}" }).freeze

  def test_the_case_list_is_read
    assert_operator CASES.size, :>=, 70
  end

  PATHS.each do |path|
    define_method("test_#{path.tr('/', '_').delete_prefix('_')}") do
      assert_same_views({ requests: [path, path], events: true }, path)
    end
  end

  def test_responses_are_json
    _, jetson = assert_same_views({ requests: ["/posts", "/cases/partial_model"] })
    jetson[:outcomes].each { |outcome| assert_equal "application/json; charset=utf-8", outcome[:content_type] }
  end

  # ActiveSupport's encoding settings are read at render time.
  def test_under_other_encoding_settings
    settings = { escape_html_entities_in_json: false, use_standard_json_time_format: false, time_precision: 0 }
    assert_same_views({ requests: PATHS + PATHS, settings: settings })
    assert_same_views({ requests: PATHS, settings: { time_precision: 6 } })
  end

  def test_without_perform_caching
    assert_same_views({ requests: PATHS, perform_caching: false, events: true })
  end

  # While something listens to "!render_template.action_view", collections
  # of partials go through Template#render for every element.
  def test_with_a_debug_subscriber
    assert_same_views({ requests: PATHS + PATHS, debug_events: true })
  end

  # With an APM agent's own ActiveSupport::Notifications.instrument (as
  # AppSignal installs: every event reaches it, subscribed to or not) and no
  # subscriber, the partials that run natively still send it ActionView's
  # render events, the same as the gem's.
  def test_with_an_agent_replacing_instrument
    _, jetson = assert_same_views({ requests: PATHS, instrument_hook: true })
    names = jetson[:outcomes].flat_map { |outcome| outcome[:events].map(&:first) }
    assert_operator names.count("render_partial.action_view"), :>, 0
    assert_operator names.count("!render_template.action_view"), :>, 0
    refute Jetson::Views::RenderEvents.instrument_redefined?, "the scenario puts instrument back"
  end

  # Class-wide Jbuilder defaults, as an app sets them in an initializer.
  def test_under_global_jbuilder_settings
    assert_same_views({ requests: PATHS, jbuilder: { key_format: [[], { camelize: :lower }] } })
    assert_same_views({ requests: PATHS, jbuilder: { ignore_nil: true, deep_format_keys: true,
                                                     key_format: [[:upcase]] } })
  end

  # JbuilderTemplate.template_lookup_options: partials of other handlers
  # when the app asks for them (a collection element is then their text).
  def test_template_lookup_options
    requests = %w[/cases/erb_partial_collection /cases/only_jbuilder_partials /posts]
    assert_same_views({ requests: requests, lookup_handlers: %i[jbuilder erb], events: true })
  end
end

# The comparison itself: a difference in any field fails.
class ViewsDiffSelfTest < Minitest::Test
  include ViewsDiff

  def test_a_difference_in_any_field_fails
    scenario = { requests: ["/cases/partial_locals"], events: true }
    expected = ViewsOracle.perform(scenario)
    assert_same_outcomes(scenario, expected, ViewsRunner.perform(scenario))
    { body: ->(o) { o[:body] = o[:body].sub("3", "4") }, status: ->(o) { o[:status] = 500 },
      content_type: ->(o) { o[:content_type] = "text/plain" }, events: ->(o) { o[:events] = o[:events].reverse },
      error: ->(o) { o[:error] = ["RuntimeError", "x"] } }.each do |field, change|
      actual = Marshal.load(Marshal.dump(expected))
      change.call(actual[:outcomes][0])
      error = assert_raises(Minitest::Assertion) { assert_same_outcomes(scenario, expected, actual) }
      assert_includes error.message, "#{field} differs"
    end
  end
end
