# frozen_string_literal: true

require "test_helper"
require "support/views_diff"

# Where Jetson's views differ from the jbuilder gem's, on purpose (README,
# "Jbuilder views"): a fragment cached by Jetson is JSON text, so on a hit
# its values are what JSON holds. Responses are the same bytes; only code
# that looks at the values of a hit sees a difference. Both sides are run
# here and their outcomes pinned, so a change on either side shows.
class ViewsKnownDifferencesTest < Minitest::Test
  include ViewsDiff

  def run_both(path)
    scenario = { requests: [path, path] }
    [ViewsOracle.perform(scenario)[:outcomes], ViewsRunner.perform(scenario)[:outcomes]]
  end

  # Merging a block into a key whose value is a cached Time: on the miss
  # both raise the gem's NoMethodError (Time#empty?); on a hit the gem still
  # holds the Time, Jetson holds its JSON string and raises a MergeError.
  def test_merging_into_a_cached_scalar
    gem, jetson = run_both("/known/merge_into_cached_time")
    assert_equal gem[0], jetson[0]
    assert_equal "NoMethodError", gem[0][:cause]
    assert_equal "NoMethodError", gem[1][:cause]
    assert_equal "Jbuilder::MergeError", jetson[1][:cause]
    # The Hash as this Ruby inspects it (3.4: {"year" => 2024}), as Jbuilder's message has it.
    updates = { "year" => 2024 }.inspect
    assert_equal "Can't merge #{updates} into \"2024-03-09T08:30:15.123Z\"", jetson[1][:error][1]
  end

  # What array! returns in a view: the gem's Array, Jetson's nil (a view's
  # builder builds no Ruby objects that nothing reads; outside views array!
  # returns the gem's Array: test/jbuilder/dsl_test.rb).
  def test_array_returns_nil_in_views
    gem, jetson = run_both("/known/array_return")
    assert_equal '{"posts":[{"id":1},{"id":2}],"returned":"Array"}', gem[0][:body]
    assert_equal '{"posts":[{"id":1},{"id":2}],"returned":"NilClass"}', jetson[0][:body]
  end

  # attributes! after a hit: the gem's Ruby objects, Jetson's JSON values.
  def test_attributes_after_a_hit
    gem, jetson = run_both("/known/attributes_after_hit")
    assert_equal gem[0], jetson[0], "the miss is the same"
    assert_includes gem[1][:body], '"classes":["ActiveSupport::TimeWithZone","BigDecimal"]'
    assert_includes jetson[1][:body], '"classes":["String","String"]'
    assert_equal gem[1][:body].sub(/"classes":\[.*\]/, ""), jetson[1][:body].sub(/"classes":\[.*\]/, "")
  end
end
