# frozen_string_literal: true

require "test_helper"
require "json"
require "support/json_oracle"

# rfc8785: true (canonical JSON) against json 3.1, which added it: every
# result is the json gem's, bytes or error. The seeded random documents of
# differential_test.rb also carry the option under json 3.1.
class RFC8785Test < Minitest::Test
  include JSONOracle

  def setup
    return if Gem::Version.new(JSON::VERSION) >= Gem::Version.new("3.1")
    return if name == "test_honoured_under_json_2_rules_too"

    skip "json #{JSON::VERSION} has no rfc8785 to compare with (BUNDLE_GEMFILE=Gemfile: json 3.1)"
  end

  # json 2 has no rfc8785 and ignores the option; Jetson honours it under
  # either line's rules, so a caller asking for canonical JSON gets it. The
  # expected text is Jetson's own under json 3.1 (this test under that bundle
  # checks it against json 3.1 above).
  def test_honoured_under_json_2_rules_too
    doc = { "b" => [1e21, 2**53 + 1, -0.0], a: { "\uE000" => 1, "\u{1F600}" => 2 } }
    assert_equal Jetson.generate(doc, rfc8785: true), Jetson.dump(doc, rfc8785: true)
    assert_equal Jetson.generate(doc, rfc8785: true), Jetson::State.new(rfc8785: true).generate(doc)
    refute_equal Jetson.generate(doc), Jetson.generate(doc, rfc8785: true)
    assert_raises(ArgumentError) { Jetson.generate(doc, rfc8785: true, indent: "  ") }
    return unless Gem::Version.new(JSON::VERSION) >= Gem::Version.new("3.1")

    assert_equal JSON.dump(doc, rfc8785: true), Jetson.dump(doc, rfc8785: true)
  end

  def canonical_same(obj, opts = {})
    opts = { rfc8785: true }.merge(opts)
    assert_generate_same(obj, opts)
    assert_both(-> { JSON::State.new(opts).generate(obj) }, -> { Jetson::State.new(opts).generate(obj) },
                "State#generate(#{obj.inspect[0, 80]}, #{opts.inspect})")
  end

  def test_numbers_at_the_layout_boundaries
    floats = [0.0, -0.0, 1.0, -1.5, 0.1, 1e20, 1e21, 9.999999999999999e20, 1.0000000000000001e21, 1e-6, 1e-7,
              1.5e-7, 9.99999e-7, 1.234e-6, 123.456, 5e-324, -5e-324, Float::MAX, -Float::MAX, 1e16, 1e15 + 0.5,
              1.2345678901234567e20, 2.2250738585072014e-308, 1.0 / 3, 4.35, 1e300, 1e-300]
    floats.each { |f| canonical_same([f]) }
    integers = [0, 1, -1, 100, 2**31, 2**53 - 1, 2**53, 2**53 + 1, -(2**53) - 1, 2**60, 2**62 - 1, -(2**62),
                2**63, 2**64, 10**21 - 1, 10**21, 10**22, 10**308, 2**1024 - 2**971, 2**1024 - 2**970,
                2**1024 - 2**970 + 1, 2**1024, -(2**1024 - 2**970), -(2**1024 - 2**970) - 1, 10**400]
    integers.each { |i| canonical_same([i]) }
  end

  def test_integer_out_of_range_names_the_integer
    error = assert_raises(Jetson::GeneratorError) { Jetson.generate([2**1024], rfc8785: true) }
    assert_equal 2**1024, error.invalid_object
    assert_equal "Integer out of range for RFC 8785", error.message
  end

  def test_non_finite_floats
    [Float::NAN, Float::INFINITY, -Float::INFINITY].each do |f|
      canonical_same([f])
      canonical_same([f], strict: true, as_json: ->(o, _key) { o.to_s })
    end
  end

  def test_keys_in_utf16_order
    keys = ["", "a", "aa", "ab", "b", "A", "\u00e9", "\u0800", "\ud7ff", "\ue000", "\uffff", "\ufeff", "\u{10000}",
            "\u{1F600}", "\u{10FFFF}", "a\u{1F600}", "a\uffff", "\u20ac", "\u{1F600}a", "\uffffa", "\"", "\\", "\u0000"]
    canonical_same(keys.each_with_index.to_h)
    canonical_same(keys.reverse.each_with_index.to_h)
    20.times do |seed|
      rng = Random.new(seed)
      canonical_same(keys.shuffle(random: rng).each_with_index.to_h { |k, i| [rng.rand < 0.3 ? k.to_sym : k, i] })
    end
  end

  def test_keys_converted_and_colliding
    canonical_same({ b: 1, a: 2 })
    canonical_same({ 1 => :a, 2.5 => :b, nil => :c, true => :d })
    canonical_same({ "a" => 1, a: 2 })
    canonical_same({ a: 1, "a" => 2 })
    canonical_same({ 1 => 1, "1" => 2 })
    canonical_same({ "b" => 1, :b => 2, "a" => 3 })
    canonical_same({ "a" => 1, a: 2 }, allow_duplicate_key: true)
    canonical_same({ "caf\u00e9".encode("ISO-8859-1") => 1, "cafe" => 2 })
    canonical_same({ "caf\xC3\xA9".b => 1 })
    canonical_same({ "ascii".b => 1, "b" => 2 })
    canonical_same({ "\xFF" => 1 })
    canonical_same({ "\xFF" => 1, "a" => 2 })
    as_json = ->(o, _key) { o.is_a?(String) ? o.b.scrub("?") : o.to_s }
    canonical_same({ 1 => 1, "\xFF" => 2, b: 3 }, strict: true, as_json: as_json)
    canonical_same({ 1 => 1, "1" => 2 }, strict: true, as_json: as_json)
    canonical_same({ "\x03" => nil, "\xF0".b => nil, "\x03": nil }, strict: true) # found by the random run
    canonical_same({ "\x03" => nil, "\xF0".b => nil, "\x03": nil })
  end

  def test_nested_values_and_sort_keys
    doc = { "z" => [{ "y" => 1, "x" => [1.5, { "b" => nil, "a" => true }] }], "a" => { "\u{1F600}" => 1, "\uE000" => 2 } }
    canonical_same(doc)
    canonical_same(doc, sort_keys: ->(h) { h.to_a.reverse.to_h })
    canonical_same(doc, max_nesting: 3)
    canonical_same(doc, depth: 2)
    canonical_same([{}, [], "\u2028<>&/", :sym, nil, Jetson::Fragment.new("[3,2,1]")])
  end

  def test_options_that_conflict
    doc = { "b" => 1, "a" => 2 }
    [{ indent: "  " }, { space: " " }, { space_before: " " }, { object_nl: "\n" }, { array_nl: "\n" },
     { ascii_only: true }, { script_safe: true }, { allow_nan: true }, { indent: "", space: "" },
     { allow_nan: true, indent: "  " }, { script_safe: true, ascii_only: true }].each do |opts|
      canonical_same(doc, opts)
      assert_both(-> { JSON.pretty_generate(doc, rfc8785: true) }, -> { Jetson.pretty_generate(doc, rfc8785: true) })
    end
    # Set one by one on a State, the conflict is found when it generates,
    # before anything is written to the io.
    [[JSON::State.new(rfc8785: true), :json], [Jetson::State.new(rfc8785: true), :jetson]].map do |state, _|
      state.indent = "  "
      io = StringIO.new
      error = assert_raises(ArgumentError) { state.generate(doc, io) }
      assert_equal "", io.string
      error.message
    end.then { |json, jetson| assert_equal json, jetson }
  end

  def test_state_and_dump
    state = Jetson::State.new(rfc8785: true)
    assert state.rfc8785?
    assert_equal JSON::State.new(rfc8785: true).to_h, state.to_h
    state.rfc8785 = false
    refute state.rfc8785?
    doc = { "b" => [1.5, 2**60], "a" => nil }
    assert_both(-> { JSON.dump(doc, rfc8785: true) }, -> { Jetson.dump(doc, rfc8785: true) })
    assert_both(-> { JSON.dump([Float::NAN], rfc8785: true) }, -> { Jetson.dump([Float::NAN], rfc8785: true) })
    assert_both(-> { JSON.dump(doc, rfc8785: true, allow_nan: true) }, -> { Jetson.dump(doc, rfc8785: true, allow_nan: true) })
    assert_raises(ArgumentError) { Jetson::Writer.new(rfc8785: true) }
  end

  def test_benchmark_documents_when_present
    %w[twitter citm_catalog canada].each do |name|
      path = File.expand_path("../../shared/bench-data/#{name}.json", __dir__)
      next unless File.exist?(path)

      doc = JSON.parse(File.read(path))
      assert_equal JSON.generate(doc, rfc8785: true), Jetson.generate(doc, rfc8785: true), name
    end
  end
end
