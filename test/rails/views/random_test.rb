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

  private

  # The one documented difference (README, "Jbuilder views"; pinned by
  # known_differences_test.rb): a view that merges a block or an Array into
  # a key whose value came from a cache hit as a JSON string (a Time, a
  # BigDecimal, a Symbol when it was written) raises Jbuilder::MergeError,
  # where the jbuilder gem, holding the Ruby object, raises its NoMethodError
  # (`empty?`) or a MergeError naming the object. Accepted only on the second
  # request of a pair, when the first (the miss) raised the same on both.
  def merge_into_cached_scalar?(index, expected, actual)
    return false unless index.odd? && expected[index - 1] == actual[index - 1] && expected[index - 1][:error]

    want = expected[index]
    got = actual[index]
    gem_error = want[:error] && (want[:cause] == "Jbuilder::MergeError" ||
                                 (want[:cause] == "NoMethodError" && want[:error][1].start_with?("undefined method `empty?'")))
    gem_error && got[:cause] == "Jbuilder::MergeError" && got[:error][0] == want[:error][0] &&
      (@tolerated = (@tolerated || 0) + 1)
  end

  def keep(dir)
    File.join(Dir.tmpdir, "jetson-views-failed-#{File.basename(dir)}")
  end
end
