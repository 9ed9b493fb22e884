# frozen_string_literal: true

require "test_helper"

# Hashes are walked under rb_hash_foreach's guard (json/pairs.c), and the
# pair writers hold no pointer into a Hash or a String across Ruby code.
# These tests put Ruby code at every depth and position, with the json
# gem's bytes and errors as the reference, and check that Ruby code which
# changes a Hash being written is seen exactly as the json gem sees it.
class HashIterationTest < Minitest::Test
  # to_json runs a block (with the object's own bytes as the result).
  class Hook
    def initialize(json = "\"hook\"", &block)
      @json = json
      @block = block
    end

    def to_json(*)
      @block&.call
      @json
    end
  end

  def assert_same_as_json(doc, **opts)
    expected = JSON.generate(doc, **opts)
    assert_equal expected, Jetson.generate(doc, **opts)
    assert_equal expected, Jetson::State.new(**opts).generate(doc)
  end

  def nested(depth, leaf)
    depth.zero? ? leaf : { "before" => [1, "x"], "level#{depth}" => nested(depth - 1, leaf), "after" => { "k" => 2 } }
  end

  def test_ruby_code_at_every_depth
    (0..6).each do |depth|
      assert_same_as_json(nested(depth, Hook.new))
      assert_same_as_json([nested(depth, Hook.new), nested(depth, 1)])
      assert_same_as_json(nested(depth, Hook.new), indent: "  ", object_nl: "\n", array_nl: "\n", space: " ")
    end
  end

  def test_ruby_code_in_every_position_of_a_hash
    8.times do |position|
      inner = (0...8).to_h { |i| ["key#{i}", i == position ? Hook.new : { "n" => i, "s" => "v#{i}" }] }
      assert_same_as_json({ "outer" => inner, "tail" => [inner.dup] })
    end
  end

  def test_large_hashes_on_both_sides_of_ruby_code
    big = (0...200).to_h { |i| ["key#{i}", { "v" => i }] }
    assert_same_as_json({ "a" => big, "b" => Hook.new, "c" => big })
  end

  # A key longer than the key cache's minimum, written before and after the
  # restart: bytes cached during the abandoned walk must not be reused.
  def test_long_keys_across_a_restart
    long = "a_key_long_enough_to_be_cached_by_the_generator"
    other = "another_key_long_enough_to_be_cached_too_yes"
    # The cache is used once the output no longer fits the stack buffer.
    doc = { "padding" => "x" * 3000, long => 1, "n" => { other => 2, long => { long => Hook.new("[1]") } }, other => { long => 3 } }
    assert_same_as_json(doc)
    assert_same_as_json([doc, doc])
    sym_doc = { padding: "x" * 3000, long.to_sym => { other.to_sym => Hook.new, long.to_sym => 1 }, other.to_sym => { long.to_sym => 2 } }
    assert_same_as_json(sym_doc)
  end

  def test_symbol_values_settled_in_the_middle_of_a_walk
    doc = { "a" => { "b" => [1, { "c" => :sym }], "d" => :other }, "e" => { "f" => :third } }
    assert_same_as_json(doc)
    assert_same_as_json({ "x" => [doc, { "y" => Hook.new, "z" => :last }] })
    # Settled three Hashes deep; Hashes after it are walked unguarded again,
    # and then restarted for a Hook.
    deep = { "a" => { "b" => { "c" => :sym, "d" => { "e" => 1 } } }, "f" => { "g" => { "h" => Hook.new } }, "i" => :j }
    assert_same_as_json(deep)
    assert_same_as_json([deep, deep], indent: " ", object_nl: "\n")
  end

  def test_values_that_need_conversion_deep_inside
    latin = "caf\xE9".dup.force_encoding(Encoding::ISO_8859_1)
    assert_same_as_json({ "a" => { "b" => { "latin" => latin } }, "after" => 1 })
    assert_same_as_json({ "a" => { latin => { "b" => 1 } } })
    assert_same_as_json({ "a" => { 12 => { nil => 1, 1.5 => 2 } } })
    string_key = Class.new(String)
    assert_same_as_json({ "a" => { string_key.new("sub") => 1 } })
    hash_subclass = Class.new(Hash)
    assert_same_as_json({ "a" => { "b" => hash_subclass[{ "c" => 1 }] } })
    assert_same_as_json({ "a" => { "b" => Jetson::Fragment.new("[1,2]") } })
    assert_same_as_json({ "a" => { "b" => Float::NAN, "c" => { "d" => Float::INFINITY } } }, allow_nan: true)
  end

  def test_errors_deep_inside_leave_the_next_call_intact
    doc = { "a" => { "b" => { "c" => Float::NAN } } }
    error = assert_raises(JSON::GeneratorError) { JSON.generate(doc) }
    mine = assert_raises(Jetson::GeneratorError) { Jetson.generate(doc) }
    assert_equal error.message, mine.message
    deep = nested(10, 1)
    assert_raises(Jetson::NestingError) { Jetson.generate(deep, max_nesting: 5) }
    assert_same_as_json(deep)
    broken = { "a" => { "b" => "\xFF".b.force_encoding(Encoding::UTF_8) } }
    assert_raises(Jetson::GeneratorError) { Jetson.generate(broken) }
    assert_same_as_json(deep)
  end

  # Ruby code that adds a key to a Hash being written: the json gem's
  # rb_hash_foreach refuses, and so must Jetson, for every enclosing Hash.
  def test_adding_a_key_to_an_enclosing_hash_is_refused_as_by_json
    [0, 1, 2].each do |level|
      json_doc = build_mutating_doc(level) { |target| target["added"] = 1 }
      expected = assert_raises(RuntimeError) { JSON.generate(json_doc) }
      jetson_doc = build_mutating_doc(level) { |target| target["added"] = 1 }
      actual = assert_raises(RuntimeError) { Jetson.generate(jetson_doc) }
      assert_equal expected.message, actual.message
      assert_match(/during iteration/, actual.message)
    end
  end

  # Changes rb_hash_foreach allows (replacing and deleting values) are seen
  # by the rest of the walk exactly as in the json gem.
  def test_allowed_changes_to_enclosing_hashes_match_json
    changes = [
      ->(target) { target["later"] = "replaced" },
      ->(target) { target.delete("later") },
      ->(target) { target["later"] = { "new" => [1, 2] } },
      ->(target) { target.delete("earlier") }
    ]
    changes.each do |change|
      [0, 1, 2].each do |level|
        expected = JSON.generate(build_mutating_doc(level, &change))
        assert_equal expected, Jetson.generate(build_mutating_doc(level, &change))
      end
    end
  end

  # {"earlier"=>..., "middle"=>{... hook ...}, "later"=>...} nested so that
  # the hook changes the Hash `level` levels above it.
  def build_mutating_doc(level, &change)
    hashes = []
    leaf = nil
    doc = nil
    (level + 1).times do
      h = { "earlier" => { "e" => 1 }, "middle" => nil, "later" => { "l" => 2 } }
      hashes << h
      if doc
        leaf["middle"] = h
      else
        doc = h
      end
      leaf = h
    end
    target = hashes[hashes.length - 1 - level]
    leaf["middle"] = Hook.new { change.call(target) }
    doc
  end

  def test_writer_values_with_ruby_code_inside
    doc = { "a" => { "b" => Hook.new("[2]"), "c" => :d }, "e" => nested(3, Hook.new) }
    writer = Jetson::Writer.new
    writer.push_array { writer.push_value(doc); writer.push_value(doc) }
    assert_equal JSON.generate([doc, doc]), writer.to_s
  end

  def test_ruby_code_under_gc_stress
    doc = { "a" => nested(3, { "h" => Hook.new { "x" * 100 }, "s" => :sym }), "b" => [nested(2, 1)] * 3 }
    expected = JSON.generate(doc)
    GC.stress = true
    begin
      assert_equal expected, Jetson.generate(doc)
    ensure
      GC.stress = false
    end
  end

  # Random documents: Hooks (some of which replace values of enclosing
  # Hashes) and Symbols at random places.
  def test_random_documents_match_json
    seed = Integer(ENV.fetch("JETSON_ITERATION_SEED", 20_261_122))
    count = Integer(ENV.fetch("JETSON_ITERATION_DOCS", 300))
    count.times do |n|
      # Two copies from the same seed: the hooks change the document.
      json_doc = random_doc(Random.new(seed + n), 0, [])
      jetson_doc = random_doc(Random.new(seed + n), 0, [])
      assert_equal JSON.generate(json_doc), Jetson.generate(jetson_doc), "seed #{seed + n}"
    end
  end

  def random_doc(rng, depth, enclosing)
    return random_scalar(rng, enclosing) if depth > 4 || rng.rand < 0.3

    if rng.rand < 0.6
      h = {}
      keys = Array.new(rng.rand(0..10)) { |i| rng.rand < 0.2 ? "k#{i}_with_a_name_over_thirty_two_bytes" : "k#{i}" }
      keys.each { |k| h[rng.rand < 0.3 ? k.to_sym : k] = nil }
      h.each_key { |k| h[k] = random_doc(rng, depth + 1, enclosing + [h]) }
      h
    else
      Array.new(rng.rand(0..6)) { random_doc(rng, depth + 1, enclosing) }
    end
  end

  def random_scalar(rng, enclosing)
    case rng.rand(10)
    when 0 then Hook.new("{\"h\":#{rng.rand(100)}}")
    when 1
      target = enclosing.sample(random: rng)
      key = target&.keys&.sample(random: rng)
      return :no_target unless key

      Hook.new("\"changed\"") { target[key] = "replaced" }
    when 2 then :"sym#{rng.rand(5)}"
    when 3 then rng.rand(-4000..4000) / 8.0 * 10.0**rng.rand(-9..9)
    when 4 then "str\u00e9#{rng.rand(100)}"
    else rng.rand(-1000..1000)
    end
  end
end
