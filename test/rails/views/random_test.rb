# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "support/views_diff"
require "support/views_generator"

# Seeded random view trees (test/support/views_generator.rb) rendered by the
# jbuilder gem and by Jetson: nested partials in every call form,
# collections, locals and counters, caching (cache!, cache_if!, cached:
# collections), key formats, ignore_nil!, merges. Each template is requested
# twice (cache miss, then hit), with events.
#
#   JETSON_VIEWS_TREES=2000 bundle exec rake test:views     # a longer run
#   JETSON_VIEWS_SEED=1234 ...                             # one seed again
class ViewsRandomTest < Minitest::Test
  include ViewsDiff

  TREES = Integer(ENV.fetch("JETSON_VIEWS_TREES", "120"))
  PER_DIRECTORY = 40

  def test_random_view_trees
    seed = Integer(ENV.fetch("JETSON_VIEWS_SEED") { Random.new_seed % 1_000_000 })
    rendered = 0
    (TREES.to_f / PER_DIRECTORY).ceil.times do |batch|
      Dir.mktmpdir("jetson-views") do |dir|
        names = ViewsGenerator.new(seed + batch).write(dir, [PER_DIRECTORY, TREES - rendered].min)
        requests = names.flat_map { |name| [["/random/#{name}", { "views.dir" => dir }]] * 2 }
        label = "seed #{seed + batch} (JETSON_VIEWS_SEED=#{seed}; files kept in #{keep(dir)})"
        begin
          assert_same_views({ requests: requests, events: true }, label, tolerate: method(:merge_into_cached_scalar?))
        rescue Minitest::Assertion
          FileUtils.cp_r(dir, keep(dir))
          raise
        end
        rendered += names.size
      end
    end
    assert_equal TREES, rendered
    puts "\nrandom views: #{@tolerated} cache hit(s) with the documented MergeError difference" if @tolerated
  end

  # The documented difference inside an outer cache! block (found by seed
  # 799482 on Ruby 3.3): on the second request the inner fragment is a hit,
  # so the gem raises NoMethodError and Jetson MergeError, and the outer
  # block's write_fragment event names that exception on each side. The
  # tolerance accepts it there too, and nothing else in the events.
  def test_merge_error_through_an_outer_cache_block
    Dir.mktmpdir("jetson-views") do |dir|
      FileUtils.mkdir_p(File.join(dir, "random"))
      File.write(File.join(dir, "random", "nested_hit.json.jbuilder"), <<~JBUILDER)
        json.cache! ["outer", @post] do
          json.b do
            json.cache! ["inner", @post] do
              json.id @post.created_at
            end
            json.id do
              json.extract! @post, :id
            end
          end
        end
      JBUILDER
      requests = [["/random/nested_hit", { "views.dir" => dir }]] * 2
      expected, actual = assert_same_views({ requests: requests, events: true }, "nested hit",
                                           tolerate: method(:merge_into_cached_scalar?))
      assert_equal 1, @tolerated, "the second request is the documented difference"
      written = [expected, actual].map do |side|
        side[:outcomes][1][:events].find do |event|
          event[0] == "write_fragment.action_controller" && event.grep(%r{/outer/}).any?
        end
      end
      assert_equal %w[NoMethodError Jbuilder::MergeError], written.map(&:last)
    end
  end

  private

  # NoMethodError's message for `empty?`: Ruby 3.4 quotes the name 'so',
  # older Rubies `so'.
  EMPTY_P_MISSING = /\Aundefined method [`']empty\?'/

  # The one documented difference (README, "Jbuilder views"; pinned by
  # known_differences_test.rb): a view that merges a block or an Array into
  # a key whose value came from a cache hit as a JSON string (a Time, a
  # BigDecimal, a Symbol when it was written) raises Jbuilder::MergeError,
  # where the jbuilder gem, holding the Ruby object, raises its NoMethodError
  # (`empty?`) or a MergeError whose message shows the object. Accepted only
  # where both raise such an error and the request's events show a hit.
  def merge_into_cached_scalar?(index, expected, actual)
    want = expected[index]
    got = actual[index]
    return false unless want[:error] && got[:error] && want[:error][0] == got[:error][0]
    return false unless got[:cause] == "Jbuilder::MergeError"
    return false unless want[:cause] == "Jbuilder::MergeError" ||
                        (want[:cause] == "NoMethodError" && want[:error][1].match?(EMPTY_P_MISSING))
    return false unless cache_hit?(got[:events])

    @tolerated = (@tolerated || 0) + 1
  end

  # A read_fragment whose key was not written next, or a cached collection
  # with hits.
  def cache_hit?(events)
    events.each_with_index.any? do |event, i|
      (event[0] == "render_collection.action_view" && event[3].to_i.positive?) ||
        (event[0] == "read_fragment.action_controller" &&
         events[(i + 1)..].none? { |later| later[0] == "write_fragment.action_controller" && later.last == event.last })
    end
  end

  def keep(dir)
    File.join(Dir.tmpdir, "jetson-views-failed-#{File.basename(dir)}")
  end
end
