# frozen_string_literal: true

require "test_helper"
require "support/json_oracle"

# One test per generation rule, each compared with the json gem's own output.
class GenerateTest < Minitest::Test
  include JSONOracle

  def test_literals_and_integers
    [nil, true, false, 0, -1, 42, 2**62 - 1, -2**62, 2**64, -(2**100), 10**40].each do |v|
      assert_generate_same([v])
      assert_generate_same(v)
    end
  end

  def test_floats_in_the_json_gem_layout
    [0.0, -0.0, 1.0, -1.5, 0.1, 1e14, 1e15, 123456789012345.0, 1e16, 1.1111111111111112e+16, 1e-5, 1e-6, 1e-7,
     2.2471348024634546e-08, 2.2471348024634546e-10, 5e-324, 1.7976931348623157e308, 1e22, 1e21, 3.14159, 100.0,
     -0.000001234, 2.5e-300, 9007199254740993.0, 4.35, 0.3].each do |f|
      assert_generate_same([f])
    end
  end

  def test_nan_and_infinity
    [Float::NAN, Float::INFINITY, -Float::INFINITY].each do |f|
      assert_generate_same([f])
      assert_generate_same([f], allow_nan: true)
      assert_generate_same(f, strict: true, as_json: ->(o, _key) { o.to_s })
    end
    error = assert_raises(Jetson::GeneratorError) { Jetson.generate([Float::NAN]) }
    assert error.invalid_object.nan?
  end

  def test_strings_and_escapes
    all_ascii = (0..127).map(&:chr).join
    ["", "plain", all_ascii, "quote\" back\\slash /", "é€😀", "\u2028\u2029", "\u007f", "a" * 5000 + "€" + "b" * 17,
     "😀" * 100, "\e[0m", "tab\tnl\ncr\rff\fbs\b"].each do |s|
      assert_generate_same([s])
      assert_generate_same([s], script_safe: true)
      assert_generate_same([s], escape_slash: true)
      assert_generate_same([s], ascii_only: true)
      assert_generate_same([s], ascii_only: true, script_safe: true)
    end
  end

  def test_escaping_at_every_alignment
    # The vector scanners (SSE2, AVX2, NEON; bytes/simd.h) work in 16- and
    # 32-byte blocks, the inline checks up to 64 bytes and the loops beyond:
    # put the special byte everywhere in strings of both, and a second one
    # further on, which the loop reaches after escaping the first.
    ["\"", "\\", "\n", "\u0001", "\u001f", "\u007f", "/", "\u2028", "é", "😀"].each do |special|
      [40, 100].each do |len|
        (0..len).each do |pos|
          s = "x" * pos + special + "y" * (len - pos)
          t = "x" * pos + special + "y" * ((pos * 7) % 37) + "\t" + "z" * (len - pos)
          [{}, { script_safe: true }, { ascii_only: true }].each do |o|
            assert_generate_same([s], o)
            assert_generate_same([t], o)
          end
        end
      end
    end
  end

  def test_string_encodings
    assert_generate_same(["caf\xC3\xA9".b])
    assert_generate_same(["plain".b])
    assert_generate_same(["\xE9t\xE9".dup.force_encoding("ISO-8859-1")])
    assert_generate_same(["\x82\xA0".dup.force_encoding("Shift_JIS")])
    assert_generate_same(["hi".encode("UTF-16LE")])
    assert_generate_same(["\xff"])
    assert_generate_same(["\x81".dup.force_encoding("Shift_JIS")])
    assert_generate_same({ "\xff" => 1 })
    assert_generate_same(["\xff".b])
    error = assert_raises(Jetson::GeneratorError) { Jetson.generate(["ok", "\xff"]) }
    assert_equal "\xff", error.invalid_object
  end

  def test_symbols
    assert_generate_same([:a, :"with space", :"é"])
    assert_generate_same({ a: :b })
    assert_generate_same([:a], strict: true)
    assert_generate_same(Array.new(1000) { |i| :"sym#{i}" })
  end

  def test_hash_keys
    assert_generate_same({ 1 => 2, nil => 3, 1.5 => 4, :s => 5, "t" => 6, Object => 7 })
    assert_generate_same({ [1] => 2 })
    assert_generate_same({ 1 => 2 }, strict: true)
    assert_generate_same({ 1 => 2 }, strict: true, as_json: ->(o, key) { key ? "k#{o}" : o })
    sub = Class.new(String) { def to_s = "sub:#{super}" }
    assert_generate_same({ sub.new("k") => 1 })
  end

  # Pairs after the first take a path of their own when the key is short
  # (1..32 bytes) and needs no escaping; every length around its limits, with
  # a byte that needs escaping at each position, must still be written as the
  # json gem writes it.
  def test_keys_of_every_short_length
    specials = ["\"", "\\", "\n", "\u0001", "/", "é", "\u2028", "<"]
    values = [0, -1, 2**62 - 1, -2**62, nil, "v", 1.5, [1], { a: 1 }, :sym]
    (0..40).each do |len|
      plain = "k" * len
      keys = [plain, *specials.flat_map { |c| len.zero? ? [] : [0, len / 2, len - 1].uniq.map { |i| plain.dup.tap { |k| k[i] = c } } }]
      keys.each do |key|
        pairs = values.map.with_index { |v, i| ["#{key}#{"x" * i}", v] }
        [pairs.to_h, pairs.to_h { |k, v| [k.to_sym, v] }, { first: 1 }.merge(pairs.to_h)].each do |hash|
          assert_generate_same(hash)
          assert_generate_same(hash, script_safe: true)
          assert_generate_same(hash, ascii_only: true)
        end
      end
    end
  end

  def test_duplicate_keys
    h = { "a" => 1, a: 2 }
    assert_generate_same(h)
    assert_generate_same(h, allow_duplicate_key: true)
    assert_generate_same(h, allow_duplicate_key: false)
    assert_generate_same({ 1 => 1, "1" => 2 }, allow_duplicate_key: false)
    assert_generate_same({ "a" => 1, b: 2 }, allow_duplicate_key: false)
  end

  def test_sort_keys
    assert_generate_same({ b: 1, a: { d: 1, c: 2 } }, sort_keys: true)
    assert_generate_same({ "b" => 1, "a" => 2 }, sort_keys: ->(h) { h.sort.reverse.to_h })
    assert_generate_same({ b: 1 }, sort_keys: ->(_h) { [1] })
    assert_generate_same({ b: 1 }, sort_keys: 5)
  end

  def test_subclasses_and_custom_objects
    hash_sub = Class.new(Hash)
    array_sub = Class.new(Array)
    string_sub = Class.new(String)
    custom_hash = Class.new(Hash) { def to_json(*) = '"custom"' }
    delegating = Class.new { def to_json(*args) = { "x" => [1, 2.5, "y"] }.to_json(*args) }
    with_to_s = Class.new { def to_s = "to_s here" }
    raising = Class.new { def to_json(*) = raise(ArgumentError, "boom") }
    non_string = Class.new { def to_json(*) = 42 }
    doc = [hash_sub[a: 1], array_sub[1, 2], string_sub.new("s"), custom_hash.new, delegating.new, with_to_s.new]
    assert_generate_same(doc)
    assert_pretty_same(doc)
    assert_generate_same(doc, script_safe: true, ascii_only: true)
    assert_generate_same({ "nested" => [delegating.new] }, indent: "\t", object_nl: "\n", array_nl: "\n", depth: 2)
    assert_generate_same([raising.new])
    assert_generate_same([non_string.new])
    assert_generate_same([Object.new], strict: true)
    assert_generate_same([Object.new], strict: true, as_json: ->(o, _k) { o.class.name })
  end

  def test_fragments
    assert_generate_same([JSON::Fragment.new("[1, 2]")])
    assert_equal '{"a":[1, 2]}', Jetson.generate({ a: Jetson::Fragment.new("[1, 2]") })
    assert_equal '[{"x":1}]', Jetson.generate([Jetson::Fragment.new('{"x":1}')], strict: true)
    assert_equal "[[1, 2]]", Jetson.generate([JSON::Fragment.new("[1, 2]")], strict: true)
    assert_raises(TypeError) { Jetson::Fragment.new(1) }
  end

  def test_nesting
    deep = [[[[1]]]]
    assert_generate_same(deep, max_nesting: 3)
    assert_generate_same(deep, max_nesting: 4)
    assert_generate_same(deep, max_nesting: 0)
    assert_generate_same(deep, max_nesting: false)
    assert_generate_same(deep, max_nesting: 3, depth: 1)
    cycle = []
    cycle << cycle
    assert_generate_same(cycle)
    h = {}
    h[:self] = h
    assert_generate_same(h)
  end

  def test_pretty
    doc = { "a" => [1, { "b" => nil }, [], {}], "c" => "d" }
    assert_pretty_same(doc)
    assert_pretty_same(doc, indent: "\t")
    assert_pretty_same(doc, space_before: " ")
    assert_pretty_same([])
    assert_pretty_same({})
    assert_generate_same(doc, indent: "--", space: "  ", space_before: "_", object_nl: "\r\n", array_nl: "|")
    assert_generate_same(doc, indent: "  ")
    assert_generate_same(doc, object_nl: "\n")
    assert_generate_same(doc, array_nl: "\n", depth: 3, indent: " ")
  end

  def test_option_errors
    assert_generate_same([1], indent: 5)
    assert_generate_same([1], max_nesting: "3")
    assert_generate_same([1], depth: -1)
    assert_generate_same([1], buffer_initial_length: "x")
    assert_generate_same([1], as_json: 5)
    assert_generate_same([1], 5)
    assert_generate_same([1], "indent" => "  ")
    assert_generate_same([1], unknown_option: true)
    assert_pretty_same([1], 5)
    assert_pretty_same([1], Struct.new(:indent).new("x"))
  end

  def test_result_is_a_new_unfrozen_utf8_string
    a = Jetson.generate("x")
    b = Jetson.generate("x")
    refute_same a, b
    refute a.frozen?
    assert_equal Encoding::UTF_8, a.encoding
    big = Jetson.generate(["x" * 100_000])
    assert_equal Encoding::UTF_8, big.encoding
    assert big.valid_encoding?
  end

  # Runs of Integers in compact Arrays are written by their own loop
  # (generator.c, gen_elements_compact): every digit count and sign, runs
  # broken by other values, and Arrays long enough to outgrow the stack
  # buffer and every growth step of the heap one in the middle of a run.
  def test_integer_runs_in_arrays
    edges = [0, 1, -1, 9, 10, -10, 99, 100, 12_345, 99_999_999, 100_000_000, -100_000_000,
             2**31, -(2**31), 2**62 - 1, -(2**62), 2**62, -(2**62) - 1, 2**64, -(2**64)]
    assert_generate_same(edges)
    assert_pretty_same(edges)
    assert_generate_same(edges, indent: "\t")
    assert_generate_same(edges, array_nl: "\n")
    mixed = [1, nil, 2, "s", 3, 4.5, 5, [6, 7, [8]], 9, { "k" => [10, 11] }, :sym, 12, 2**70, 13, true, 14]
    assert_generate_same(mixed)
    assert_generate_same([nil, 1, 2], script_safe: true)
    rng = Random.new(20_261_122)
    [1, 2, 100, 700, 5_000, 70_000].each do |n|
      ints = Array.new(n) { rng.rand(-(2**62)..(2**62 - 1)) >> rng.rand(0..62) }
      assert_generate_same(ints)
      assert_generate_same([ints, "x" * rng.rand(0..3000), ints.reverse])
      broken = ints.each_with_index.map { |v, i| (i % 97).zero? ? [v, "v#{i}"] : v }
      assert_generate_same(broken)
    end
  end

  # Arrays write runs of short Strings and Symbols (1..32 bytes, nothing to
  # escape) like runs of Integers; every length around those limits, with a
  # byte that needs escaping at each position, interleaved with the other
  # kinds of element, must still be written as the json gem writes it.
  def test_string_and_symbol_runs_in_arrays
    specials = ["\"", "\\", "\t", "\u001f", "/", "é", "\u2029", "&"]
    (0..40).each do |len|
      plain = "s" * len
      names = [plain, *specials.flat_map { |c| len.zero? ? [] : [0, len / 2, len - 1].uniq.map { |i| plain.dup.tap { |k| k[i] = c } } }]
      strings = names.flat_map { |n| [n, "#{n}t"] }
      symbols = strings.map(&:to_sym)
      mixed = strings.zip(symbols, 0..).flatten + [nil, 1.5, [], {}, "s".b, "s".encode("UTF-16LE")]
      broken = strings + ["\xff".dup.force_encoding("BINARY")] # an error half-way, like the json gem's
      [strings, symbols, mixed, mixed.reverse, [[strings], { k: symbols }], broken].each do |doc|
        assert_generate_same(doc)
        assert_generate_same(doc, script_safe: true)
        assert_generate_same(doc, ascii_only: true)
        assert_generate_same(doc, strict: true)
      end
    end
    sub = Class.new(String) { def to_s = "sub" }
    assert_generate_same(["a", sub.new("b"), :c, "d"])
  end

  def test_large_documents_match
    doc = Array.new(2000) { |i| { "id" => i, "name" => "item #{i} é", "tags" => %w[a b c], "score" => i / 7.0 } }
    assert_generate_same(doc)
    assert_pretty_same(doc)
  end
end
