# frozen_string_literal: true

require "test_helper"
require "json"
require "support/subprocess"
require "jetson/rails" # Jetson::Rails::OjRules::FLAG_OJ, read here of the child's report
require "support/oj_child"

# Scripts and apps that call Oj.optimize_rails: jetson/jbuilder and
# Jetson::OjEncoder write Oj's Rails-mode bytes natively
# (ext/jetson/rails/oj_mode.c), compared with Oj itself on random documents
# (RailsGraph) and hand-picked values: the same value set as a Jbuilder key,
# target! against Jbuilder's `attributes!.to_json` (ActiveSupport handing the
# Hash to Oj's encoder), and each value through Jetson::OjEncoder and
# Oj::Rails::Encoder with the options to_json and render json: pass. Oj.optimize_rails replaces ActiveSupport's encoder and JSON's
# methods for the whole process, so the comparison runs in a child.
class OjRailsModeTest < Minitest::Test
  include JetsonSubprocess
  include OjChild

  CHILD = <<~'RUBY'
    require "support/oj_child/rails"
    require "jetson/jbuilder"
    require "support/rails_graph"

    require "support/oj_call_count" # CountOjCalls.calls: every value handed to Oj

    def outcome
      [:ok, yield]
    rescue StandardError, NoMemoryError => e
      [:raises, e.class.name]
    end

    HAND_PICKED = [
      0.1 + 0.2, 1.0e-7, 1.0e20, 2.0**63, -(2.0**63), 123_456_789.123456789, 1.0, -0.0, 0.0, Float::NAN,
      -Float::INFINITY, 5.0e-324, Float::MAX, 1234567.0001, 9007199254740993.0, 0.1, 100.0, 2.5e15, 1.0 / 3,
      2**64, -(2**70), "<b>&amp;</b> \u2028\u2029 \u0001\u007f/", "caf\u00e9", { id: 1, "id" => 2 }, { 1 => :a, nil => 2 },
      :sym, Time.utc(2024, 1, 2, 3, 4, 5, 123_456), BigDecimal("1.50"), (1..3), /ab+c/i, "\xE9".b,
      "latin \xE9".dup.force_encoding(Encoding::ISO_8859_1), Date.new(2024, 2, 29)
    ].freeze

    variants = {
      "Oj.optimize_rails" => -> {},
      "escape_html_entities_in_json = false" => -> { ActiveSupport::JSON::Encoding.escape_html_entities_in_json = false },
      "Oj::Rails.deoptimize(Float)" => -> { ActiveSupport::JSON::Encoding.escape_html_entities_in_json = true
                                            Oj::Rails.deoptimize(Float) },
      "Oj::Rails.deoptimize(Hash, Array)" => -> { Oj::Rails.deoptimize(Hash, Array) },
      "Oj::Rails.optimize again" => -> { Oj::Rails.optimize },
      "time_precision = 0" => -> { ActiveSupport::JSON::Encoding.time_precision = 0 },
      "time_precision = 9, legacy times" => -> { ActiveSupport::JSON::Encoding.time_precision = 9
                                                 ActiveSupport::JSON::Encoding.use_standard_json_time_format = false },
      "Oj::Rails.deoptimize(Time, TimeWithZone)" => -> { ActiveSupport::JSON::Encoding.use_standard_json_time_format = true
                                                         ActiveSupport::JSON::Encoding.time_precision = 3
                                                         Oj::Rails.deoptimize(Time, ActiveSupport::TimeWithZone) }
    }
    report = {}
    variants.each do |name, change|
      change.call
      compared = differ = 0
      diffs = []
      docs = HAND_PICKED + (0...Integer(ENV.fetch("OJ_DOCS"))).map { |seed| RailsGraph.build(Random.new(seed)) }
      docs.each do |doc|
        ours = outcome { Jbuilder.new { |json| json.v doc }.target! }
        oj = outcome { { "v" => doc }.to_json }
        compared += 1
        next if ours == oj

        differ += 1
        diffs << [doc.inspect[0, 120], ours, oj] if diffs.size < 5
      end
      # Jetson::OjEncoder against Oj's encoder, with the options to_json and
      # render json: pass (Oj's own only:/except: go to Oj).
      encoder_differ = 0
      docs.each_with_index do |doc, i|
        options = [nil, { escape: false }, { prefixes: ["posts"], template: "index" }, RailsGraph.options(Random.new(i))][i % 4]
        ours = outcome { Jetson::OjEncoder.new(options).encode(doc) }
        oj = outcome { Oj::Rails::Encoder.new(options).encode(doc) }
        next if ours == oj

        encoder_differ += 1
        diffs << [options, doc.inspect[0, 120], ours, oj] if diffs.size < 5
      end
      CountOjCalls.calls = 0
      Jetson::OjEncoder.new(escape: false).encode({ "a" => [1, 2.5, "<x>", :s, nil, { b: true }] })
      encoder_oj_calls = CountOjCalls.calls
      CountOjCalls.calls = 0
      at = Time.utc(2024, 5, 6, 7, 8, 9, 123_456)
      zoned = at.in_time_zone("Kathmandu")
      plain = Jbuilder.new { |json| json.posts([1, 2]) { |i| json.id i; json.f i / 3.0; json.s "<#{i}>"; json.h({ a: [nil, true] }); json.at at; json.zoned zoned } }.target!
      report[name] = { "compared" => compared, "differ" => differ + encoder_differ, "diffs" => diffs,
                       "encoder_oj_calls" => encoder_oj_calls,
                       "flags" => Jetson::Rails.builder_flags, "oj_calls" => CountOjCalls.calls,
                       "plain" => [plain, { "posts" => [1, 2].map { |i| { "id" => i, "f" => i / 3.0, "s" => "<#{i}>", "h" => { a: [nil, true] }, "at" => at, "zoned" => zoned } } }.to_json] }
    end
    puts JSON.generate(report)
  RUBY

  def test_jbuilder_writes_ojs_rails_mode_bytes_natively
    seeds = Integer(ENV.fetch("OJ_DOCS", "400"))
    out = ruby_output(CHILD, env: { "RUBYLIB" => File.expand_path("..", __dir__), "OJ_DOCS" => seeds.to_s }, quiet: true)
    report = JSON.parse(out.lines.last)
    assert_equal 8, report.size
    report.each do |variant, r|
      assert_operator r["compared"], :>=, seeds, variant
      assert_equal 0, r["differ"], "#{variant}: Jetson and Oj differ on #{r["differ"]} documents: #{r["diffs"].inspect}"
      assert r["flags"].anybits?(Jetson::Rails::OjRules::FLAG_OJ), "#{variant}: Oj's encoder not written natively"
      assert_equal r["plain"][1], r["plain"][0], variant
    end
    # Hashes, Arrays, Floats, Strings, Symbols, nil and booleans never go to
    # Oj while Oj::Rails.optimize covers them.
    assert_equal 0, report["Oj.optimize_rails"]["oj_calls"]
    assert_equal 0, report["Oj::Rails.optimize again"]["oj_calls"]
    assert_equal 0, report["Oj.optimize_rails"]["encoder_oj_calls"], "Jetson::OjEncoder wrote through Oj"
    # Oj's switches are seen when they change.
    assert report["Oj.optimize_rails"]["flags"].anybits?(Jetson::Rails::OjRules::FLAG_FLOATS)
    refute report["Oj::Rails.deoptimize(Float)"]["flags"].anybits?(Jetson::Rails::OjRules::FLAG_FLOATS)
    refute report["Oj::Rails.deoptimize(Hash, Array)"]["flags"].anybits?(Jetson::Rails::OjRules::FLAG_HASHES)
    assert_operator report["Oj::Rails.deoptimize(Hash, Array)"]["oj_calls"], :>, 0
    assert report["Oj::Rails.optimize again"]["flags"].anybits?(Jetson::Rails::OjRules::FLAG_HASHES)
    # Times and TimeWithZones too, while Oj optimizes them.
    assert report["time_precision = 9, legacy times"]["flags"].allbits?(Jetson::Rails::OjRules::FLAG_TIMES |
                                                                          Jetson::Rails::OjRules::FLAG_ZONED_TIMES)
    assert_equal 0, report["time_precision = 0"]["oj_calls"]
    refute report["Oj::Rails.deoptimize(Time, TimeWithZone)"]["flags"].anybits?(Jetson::Rails::OjRules::FLAG_TIMES)
  end
end
