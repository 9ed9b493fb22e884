# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "support/random_graph"
require_relative "support/differential"
require_relative "support/writer_support"

# Jetson::Writer on random documents (RandomGraph): a writer driven through
# each document, in memory and into an io, against Jetson.generate and
# JSON.generate.
class WriterRandomDocumentsTest < Minitest::Test
  include WriterSupport

  # --- random documents ----------------------------------------------------

  RANDOM_OPTIONS = [
    {}, { script_safe: true }, { ascii_only: true }, { ascii_only: true, script_safe: true }, PRETTY,
    { indent: "\t", space_before: " ", space: "", object_nl: "\r\n", array_nl: "" }, { indent: "--", array_nl: "|" },
    { allow_nan: true, max_nesting: false }, { strict: true }, { depth: 2, indent: " ", object_nl: "\n" },
    { max_nesting: 5 }
  ].freeze

  def test_random_documents
    docs = Integer(ENV.fetch("JETSON_WRITER_DOCS", ENV["JETSON_MEMCHECK"] ? "60" : "400"))
    seed = Integer(ENV["JETSON_DIFF_SEED"] || Minitest.seed)
    compared = errors = 0
    docs.times do |i|
      rng = Random.new(seed + i)
      spec = RandomGraph::Generator.new(rng, cycles: false).document
      pair = RandomGraph::Pair.new(spec, json_fragment: JSON::Fragment, jetson_fragment: Jetson::Fragment)
      [RANDOM_OPTIONS[i % RANDOM_OPTIONS.size], RANDOM_OPTIONS[rng.rand(RANDOM_OPTIONS.size)]].uniq.each do |opts|
        # Keys pushed one by one are written as given (see
        # test_duplicate_keys_pushed_one_by_one_are_written_as_given): under
        # json 3, where a Hash with colliding keys raises, compare with the
        # Hash written as it is.
        opts = { allow_duplicate_key: true }.merge(opts) if Jetson::JSON_RULES >= 3
        label = "document #{i} (seed #{seed + i}), options #{opts.inspect}"
        quietly do
          expected, expected_error = outcome { Jetson.generate(pair.jetson, opts) }
          actual, actual_error = outcome do
            w = writer(**opts)
            Walker.new(w, Random.new(i), opts).write(pair.jetson)
            w.to_s
          end
          if expected_error && actual_error && expected_error != actual_error
            # A Hash with keys of several types is checked as a whole by the
            # generator (the duplicate-key check converts every key first), so
            # a key whose to_s raises can fail before an earlier bad key is
            # written; a writer meets the keys one by one. Both must raise.
            assert(pair.jetson.inspect.include?("ToSRaises"), "#{label}: #{expected_error} vs #{actual_error}")
            assert_nil actual, label
          else
            # As pairs: either side may be nil (minitest 6 refuses assert_equal nil).
            assert_equal [expected, expected_error], [actual, actual_error], label
          end
          io = StringIO.new
          streamed, streamed_error = outcome do
            Walker.new(writer(io, **opts), Random.new(i + 1), opts).write(pair.jetson)
            io.string
          end
          if expected_error && streamed_error && expected_error.first != streamed_error.first
            assert(pair.jetson.inspect.include?("ToSRaises"), "#{label} (io): #{expected_error} vs #{streamed_error}")
          else
            assert_equal [expected_error&.first], [streamed_error&.first], "#{label} (io)"
          end
          assert_equal expected, streamed, "#{label} (io)" unless expected_error

          json, json_error = outcome { JSON.generate(pair.json, opts) }
          assert_equal json_error.nil?, actual_error.nil?, "#{label}: json gem #{json_error.inspect}, writer #{actual_error.inspect}"
          # The two sides hold distinct objects: default to_s texts differ by address.
          json, mine = [json, actual].map { |text| text&.b&.gsub(/0x\h{8,16}/n, "0xADDR") }
          assert_equal json, mine, "#{label}: differs from JSON.generate" if json && mine
          compared += 1
          errors += 1 if actual_error
        end
      end
    end
    if ENV["JETSON_DIFF_VERBOSE"]
      puts "\nwriter: #{compared} comparisons, #{errors} raised"
    end
    assert_operator compared, :>, docs
    assert_operator errors, :<, compared / 2, "most documents are written, not refused"
  end
end
