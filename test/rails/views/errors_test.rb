# frozen_string_literal: true

require "test_helper"
require "support/views_diff"

# Bad input in views (kit/views_app/tests/views/errors/): a missing partial,
# a partial or block that raises, a syntax error, a cache store that raises
# on read or write. Jetson raises what the jbuilder gem raises (class,
# message, cause, the template and line it names) and caches what it caches:
# no entry for a fragment whose rendering failed.
class ViewsErrorsTest < Minitest::Test
  include ViewsDiff

  ERRORS = ViewsDiff.views_in("errors")

  ERRORS.each do |name|
    define_method("test_#{name}") do
      path = "/errors/#{name}"
      gem_result, jetson_result = assert_same_views({ requests: [path, path], events: true, entries: true }, path)
      assert_same_entries(gem_result, jetson_result)
    end
  end

  # The same under a listener of !render_template (as APM agents listen):
  # the events, their order and the exception each names are the gem's.
  ERRORS.each do |name|
    define_method("test_#{name}_under_listeners") do
      path = "/errors/#{name}"
      assert_same_views({ requests: [path, path], events: true, debug_events: true }, "#{path} under listeners")
    end
  end

  def test_errors_are_raised
    _, jetson = assert_same_views({ requests: %w[/errors/missing_partial /errors/syntax_error /errors/raising_collection] })
    jetson[:outcomes].each { |outcome| assert outcome[:error], "#{outcome.inspect} should have raised" }
  end

  # A store that raises on each operation in turn, under every caching view.
  CACHING = %w[/errors/cached_ok /errors/cache_root_ok /cases/cache_block /cases/cached_collection
               /cases/cache_in_partial /cases/cached_collection_key].freeze

  %i[read write read_multi write_multi].each do |operation|
    define_method("test_a_store_that_raises_on_#{operation}") do
      scenario = { requests: CACHING + CACHING, events: true, entries: true,
                   store: [:failing_store, { fail: [operation] }] }
      gem_result, jetson_result = assert_same_views(scenario, "#{operation} raises")
      assert(jetson_result[:outcomes].any? { |outcome| outcome[:error] }, "some view should have raised")
      assert_same_entries(gem_result, jetson_result)
    end
  end

  private

  # The fragments each store holds, named as the jbuilder gem names them:
  # without Jetson's namespace and without the template digest (see
  # ViewsRunner#event).
  def assert_same_entries(gem_result, jetson_result)
    assert_equal ViewsDiff.fragment_names(gem_result[:entries]), ViewsDiff.fragment_names(jetson_result[:entries]),
                 "the stores hold different fragments"
  end
end
