# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "support/writer_support"

# Jetson::Writer: every method and misuse, and byte equality with
# Jetson.generate and JSON.generate on the equivalent Ruby structure, in
# memory.  Streaming into an io is in writer_io_test.rb, random documents in
# writer_random_documents_test.rb, GC in writer_gc_test.rb.
class WriterTest < Minitest::Test
  include WriterSupport

  # --- the methods ---------------------------------------------------------

  def test_error_class
    assert_operator Jetson::WriterError, :<, Jetson::JSONError
  end

  def test_empty_writer
    w = writer
    assert_equal "", w.to_s
    assert_same w, w.flush
    assert_equal "", w.to_s
  end

  def test_scalars_at_the_top_level
    [nil, true, false, 0, -42, 2**70, 1.5, "str", :sym, "é\u2028</"].each do |v|
      assert_writes(v) { |w| w.push_value(v) }
    end
    assert_writes([1, 2]) { |w| w.push_json("[1,2]") }
  end

  def test_push_object_and_push_array_without_blocks
    doc = { "a" => 1, "b" => [true, nil, { "c" => "d" }], "e" => {}, "f" => [] }
    assert_writes(doc) do |w|
      assert_same w, w.push_object
      w.push_value(1, "a")
      w.push_array("b")
      w.push_value(true)
      w.push_value(nil)
      w.push_object
      w.push_key("c")
      w.push_value("d")
      w.pop
      w.pop
      w.push_object("e")
      w.pop
      w.push_key("f")
      w.push_array
      assert_same w, w.pop
      w.pop
    end
  end

  def test_blocks_yield_the_writer_and_close_the_container
    doc = { "list" => [1, [], {}, { "x" => [2] }], "obj" => { "k" => "v" } }
    assert_writes(doc) do |w|
      result = w.push_object do |yielded|
        assert_same w, yielded
        w.push_array("list") do
          w.push_value(1)
          w.push_array {}
          w.push_object {}
          w.push_object { w.push_array(:x) { w.push_value(2) } }
        end
        w.push_key(:obj)
        w.push_object { w.push_value("v", :k) }
      end
      assert_same w, result
    end
  end

  def test_methods_chain
    assert_equal '[1,{"a":2}]', writer.push_array.push_value(1).push_object.push_key("a").push_value(2).pop_all.to_s
  end

  def test_push_json_pastes_bytes_as_they_are
    assert_writes({ "raw" => { "x" => [1, 2] }, "n" => 3 }) do |w|
      w.push_object do
        w.push_json('{"x":[1,2]}', "raw")
        w.push_key("n")
        w.push_json("3")
      end
    end
    w = writer
    w.push_array { w.push_json("not json, kept as it is") }
    assert_equal "[not json, kept as it is]", w.to_s
    sub = Class.new(String)
    assert_equal "[1]", writer.push_array.push_json(sub.new("1")).pop.to_s
  end

  def test_push_json_needs_a_string
    w = writer.push_array
    [1, :sym, nil, ["[]"], Jetson::Fragment.new("1")].each do |bad|
      assert_raises(TypeError) { w.push_json(bad) }
    end
    assert_equal "[", w.to_s
  end

  def test_pop_all
    w = writer
    w.push_object.push_array("a").push_object.push_key("b").push_array
    assert_same w, w.pop_all
    assert_equal '{"a":[{"b":[]}]}', w.to_s
    assert_same w, w.pop_all # nothing open: nothing to do
    assert_equal "", writer.pop_all.to_s
  end

  def test_to_s_is_a_fresh_utf8_string_of_what_was_written_so_far
    w = writer.push_object.push_key("a")
    first = w.to_s
    assert_equal '{"a":', first
    refute_predicate first, :frozen?
    first << "changed"
    w.push_value(1).pop
    assert_equal '{"a":1}', w.to_s
    refute_same w.to_s, w.to_s
  end

  def test_flush_without_io_does_nothing
    w = writer.push_array.push_value(1)
    assert_same w, w.flush
    assert_equal "[1", w.to_s
  end

  # --- keys ----------------------------------------------------------------

  def test_symbol_and_string_keys_are_escaped_like_hash_keys
    keys = ["plain", "</script>", "é", "\u2028\u2029", "quo\"te", "back\\slash", "ctl\u0001", "", "😀", "a" * 40]
    [{}, { script_safe: true }, { ascii_only: true }, { ascii_only: true, script_safe: true }].each do |opts|
      keys.each do |key|
        [key, key.to_sym].each do |k|
          assert_writes({ k => [k] }, opts) { |w| w.push_object { w.push_array(k) { w.push_value(k) } } }
          assert_writes({ k => 1 }, opts) { |w| w.push_object.push_key(k).push_value(1).pop }
        end
      end
    end
  end

  def test_keys_in_other_encodings_are_transcoded_like_hash_keys
    latin1 = "caf\xE9".b.force_encoding("ISO-8859-1")
    # BINARY holding UTF-8: reinterpreted under json 2, an error under json 3.
    [latin1, latin1.to_sym, "caf\xC3\xA9".b].each do |key|
      outcome = ->(&blk) { quietly { blk.call } rescue [$!.class, $!.message] } # rubocop:disable Style/RescueModifier
      expected = outcome.call { Jetson.generate({ key => 1 }) }
      assert_equal expected, outcome.call { writer.push_object.push_value(1, key).pop.to_s }
    end
  end

  def test_other_keys_are_converted_as_jetson_generate_converts_hash_keys
    to_s_key = Class.new { def to_s = "custom" }.new
    sub = Class.new(String) { def to_s = "from to_s" }
    [1, 2**70, 1.5, true, to_s_key, sub.new("orig"), Object, 1..2].each do |key|
      assert_writes({ key => 1 }) { |w| w.push_object { w.push_value(1, key) } }
      assert_writes({ key => [] }) { |w| w.push_object { w.push_key(key).push_array.pop } }
    end
  end

  def test_strict_mode_keys
    error = assert_raises(Jetson::GeneratorError) { Jetson.generate({ 1 => 2 }, strict: true) }
    w = writer(strict: true).push_object
    mine = assert_raises(Jetson::GeneratorError) { w.push_key(1) }
    assert_equal error.message, mine.message
    assert_equal 1, mine.invalid_object
    w.push_key("ok").push_value(1).pop
    assert_equal '{"ok":1}', w.to_s

    as_json = ->(obj, is_key) { is_key ? "key:#{obj}" : obj.to_s }
    assert_writes({ 1 => Object }, strict: true, as_json: as_json) { |w| w.push_object { w.push_value(Object, 1) } }
  end

  def test_a_key_cannot_be_nil
    w = writer.push_object
    assert_raises(TypeError) { w.push_key(nil) }
    # nil in the optional argument means "no key".
    assert_writer_error(/without a key/) { w.push_value(1, nil) }
    assert_equal "{", w.to_s
  end

  def test_invalid_utf8_key_raises_as_jetson_generate
    bad = "\xFF".dup.force_encoding("UTF-8")
    expected = assert_raises(Jetson::GeneratorError) { Jetson.generate({ bad => 1 }) }
    w = writer.push_object.push_value(1, "a")
    error = assert_raises(Jetson::GeneratorError) { w.push_key(bad) }
    assert_equal expected.message, error.message
    error = assert_raises(Jetson::GeneratorError) { w.push_value(2, bad) }
    assert_equal expected.message, error.message
    # Nothing of the failed calls stays in the output.
    w.push_value(2, "b").pop
    assert_equal '{"a":1,"b":2}', w.to_s
  end

  # --- values --------------------------------------------------------------

  def test_values_are_written_as_jetson_generate_writes_them
    custom = Class.new { def to_json(*args) = { "custom" => args.size }.to_json(*args) }.new
    values = [nil, true, false, 0, -1, 2**64, 1.0, -0.0, 1e20, 0.1, "s", :sym, "é", [1, [2, { "a" => nil }]],
              { "k" => { "n" => [] } }, { a: 1, "b" => 2 }, 1..3, Object, custom, Jetson::Fragment.new("[7]"),
              Struct.new(:x).new(1), Time.at(0).utc]
    [{}, PRETTY, { script_safe: true }].each do |opts|
      values.each do |v|
        expected = Jetson.generate([v, { "v" => v }], opts)
        w = writer(**opts)
        w.push_array { w.push_value(v); w.push_object { w.push_value(v, "v") } }
        assert_equal expected, w.to_s, "#{v.inspect} #{opts}"
      end
    end
  end

  def test_invalid_utf8_value_raises_as_jetson_generate
    bad = "ok\xFF".dup.force_encoding("UTF-8")
    expected = assert_raises(Jetson::GeneratorError) { Jetson.generate([bad]) }
    w = writer.push_array.push_value(1)
    error = assert_raises(Jetson::GeneratorError) { w.push_value(bad) }
    assert_equal expected.message, error.message
    assert_equal expected.invalid_object, error.invalid_object
    error = assert_raises(Jetson::GeneratorError) { w.push_value([2, [bad]]) }
    assert_equal expected.message, error.message
    w.push_value(3).pop
    assert_equal "[1,3]", w.to_s
  end

  def test_an_exception_from_to_json_comes_through
    raiser = Class.new { def to_json(*) = raise(Boom, "no json for you") }.new
    w = writer.push_array.push_value(1)
    error = assert_raises(Boom) { w.push_value(raiser) }
    assert_equal "no json for you", error.message
    assert_raises(Boom) { w.push_value({ "deep" => [1, 2, raiser] }) }
    w.push_value(2).pop
    assert_equal "[1,2]", w.to_s
  end

  def test_nan_and_allow_nan
    expected = assert_raises(Jetson::GeneratorError) { Jetson.generate([Float::NAN]) }
    w = writer.push_array
    assert_equal expected.message, assert_raises(Jetson::GeneratorError) { w.push_value(Float::NAN) }.message
    assert_writes([Float::NAN, -Float::INFINITY], allow_nan: true) do |w2|
      w2.push_array { w2.push_value(Float::NAN); w2.push_value(-Float::INFINITY) }
    end
  end

  def test_strict_values
    expected = assert_raises(Jetson::GeneratorError) { Jetson.generate([Object.new], strict: true) }
    w = writer(strict: true).push_array
    error = assert_raises(Jetson::GeneratorError) { w.push_value(Object.new) }
    assert_equal expected.message.sub(/0x\h+/, ""), error.message.sub(/0x\h+/, "")
  end

  def test_to_json_gets_the_state_and_depth_of_its_place
    probe = Class.new do
      def to_json(state = nil, *)
        [state.depth, state.indent, state.script_safe?].to_json
      end
    end.new
    opts = { indent: "\t", script_safe: true }
    doc = [{ "a" => [probe] }, probe]
    assert_writes(doc, opts) do |w|
      w.push_array do
        w.push_object { w.push_array("a") { w.push_value(probe) } }
        w.push_value(probe)
      end
    end
  end

  # --- layout --------------------------------------------------------------

  def test_pretty_layout_matches_pretty_generate
    doc = { "a" => 1, "b" => [], "c" => {}, "d" => [1, [2, []], { "e" => { "f" => [{}] } }], "g" => "h" }
    w = writer(**PRETTY)
    write_structure(w, doc)
    assert_equal JSON.pretty_generate(doc), w.to_s
    assert_equal Jetson.pretty_generate(doc), w.to_s
  end

  def test_every_layout_option
    doc = [{ "a" => [1, {}, []], "b" => { "c" => nil } }, [], {}, [[{ "d" => [2] }]]]
    layouts = [
      PRETTY,
      { indent: "\t", space_before: " ", space: "", object_nl: "\r\n", array_nl: "" },
      { indent: "--", array_nl: "|" },
      { object_nl: "\n" },
      { array_nl: "\n" },
      { indent: "  " },
      { space: " ", space_before: "  " },
      { indent: " ", object_nl: "\n", depth: 2 },
      { indent: "", space: "", object_nl: "", array_nl: "" }
    ]
    layouts.each do |opts|
      assert_writes(doc, opts) { |w| write_structure(w, doc) }
      assert_writes({ "x" => doc }, opts) { |w| w.push_object { w.push_value(doc, "x") } }
    end
  end

  def test_depth_option_counts_toward_max_nesting
    assert_writes([[1]], depth: 1, max_nesting: 3) { |w| write_structure(w, [[1]]) }
    expected = assert_raises(Jetson::NestingError) { Jetson.generate([[1]], depth: 2, max_nesting: 3) }
    w = writer(depth: 2, max_nesting: 3).push_array
    assert_equal expected.message, assert_raises(Jetson::NestingError) { w.push_array }.message
  end

  # --- nesting -------------------------------------------------------------

  def test_max_nesting
    expected = assert_raises(Jetson::NestingError) { Jetson.generate([[[1]]], max_nesting: 2) }
    w = writer(max_nesting: 2).push_array.push_array
    error = assert_raises(Jetson::NestingError) { w.push_array }
    assert_equal expected.message, error.message
    assert_raises(Jetson::NestingError) { w.push_object }
    assert_equal expected.message, assert_raises(Jetson::NestingError) { w.push_value([1]) }.message
    # The writer is unharmed.
    w.push_value(1).pop_all
    assert_equal "[[1]]", w.to_s

    object = writer(max_nesting: 1).push_object
    assert_raises(Jetson::NestingError) { object.push_object("k") }
    object.push_object("k") rescue nil # rubocop:disable Style/RescueModifier
    assert_equal "{", object.to_s
  end

  def test_default_max_nesting_and_no_limit
    w = writer
    100.times { w.push_array }
    assert_raises(Jetson::NestingError) { w.push_array }
    w.pop_all
    assert_equal "[" * 100 + "]" * 100, w.to_s

    [false, 0].each do |limit|
      deep = writer(max_nesting: limit)
      1000.times { deep.push_object.push_array("k") }
      deep.pop_all
      assert_equal ('{"k":[' * 1000) + ("]}" * 1000), deep.to_s
    end
  end

  # --- misuse --------------------------------------------------------------

  def test_a_value_inside_an_object_needs_a_key
    w = writer.push_object
    assert_writer_error(/push_value inside an object without a key/) { w.push_value(1) }
    assert_writer_error(/push_object inside an object without a key/) { w.push_object }
    assert_writer_error(/push_array inside an object without a key/) { w.push_array }
    assert_writer_error(/push_json inside an object without a key/) { w.push_json("1") }
    assert_equal "{", w.to_s
  end

  def test_no_key_inside_an_array_or_at_the_top_level
    root = writer
    assert_writer_error(/push_value with a key at the top level/) { root.push_value(1, "k") }
    assert_writer_error(/push_object with a key at the top level/) { root.push_object("k") }
    assert_writer_error(/push_json with a key at the top level/) { root.push_json("1", :k) }
    array = writer.push_array
    assert_writer_error(/push_value with a key inside an array/) { array.push_value(1, "k") }
    assert_writer_error(/push_array with a key inside an array/) { array.push_array(:k) }
    assert_writer_error(/push_json with a key inside an array/) { array.push_json("1", "k") }
    assert_equal "", root.to_s
    assert_equal "[", array.to_s
  end

  def test_push_key_misuse
    assert_writer_error(/push_key outside an object \(at the top level\)/) { writer.push_key("k") }
    assert_writer_error(/push_key outside an object \(inside an array\)/) { writer.push_array.push_key("k") }
    w = writer.push_object.push_key("a")
    assert_writer_error(/push_key twice/) { w.push_key("b") }
    assert_writer_error(/push_value with a key while the key given to push_key has no value yet/) { w.push_value(1, "b") }
    assert_writer_error(/push_object with a key while/) { w.push_object("b") }
    w.push_value(1).pop
    assert_equal '{"a":1}', w.to_s
  end

  def test_pop_misuse
    assert_writer_error(/pop with no open container\z/) { writer.pop }
    done = writer.push_array.pop
    assert_writer_error(/pop with no open container \(the document is complete\)/) { done.pop }
    pending = writer.push_object.push_key("a")
    assert_writer_error(/pop while the key given to push_key has no value/) { pending.pop }
    assert_writer_error(/pop_all while the key given to push_key has no value/) { pending.pop_all }
    assert_equal '{"a":', pending.to_s
  end

  def test_a_second_top_level_value
    [writer.push_value(1), writer.push_json("1"), writer.push_array.pop, writer.push_object {}].each do |w|
      before = w.to_s
      assert_writer_error(/push_value after the top-level value is complete/) { w.push_value(2) }
      assert_writer_error(/push_object after the top-level value is complete/) { w.push_object }
      assert_writer_error(/push_array after the top-level value is complete/) { w.push_array }
      assert_writer_error(/push_json after the top-level value is complete/) { w.push_json("2") }
      assert_writer_error(/push_key outside an object/) { w.push_key("k") }
      assert_equal before, w.to_s
    end
  end

  def test_blocks_must_leave_their_container_innermost
    w = writer
    assert_writer_error(/block given to push_array left 1 container\(s\) open/) { w.push_array { w.push_object } }
    w = writer
    assert_writer_error(/block given to push_object closed its container/) { w.push_object { w.pop } }
  end

  def test_a_block_that_raises_leaves_its_container_open
    w = writer.push_array
    assert_raises(Boom) { w.push_object { w.push_value(1, "a"); raise Boom } }
    assert_equal '[{"a":1', w.to_s
  end

  def test_writing_from_inside_a_write_is_refused
    w = writer
    reentrant = Class.new do
      define_method(:to_json) { |*| w.push_value(1) && "1" }
    end.new
    reader = Class.new { define_method(:to_json) { |*| w.to_s } }.new
    w.push_array
    assert_writer_error(/in the middle of a write/) { w.push_value(reentrant) }
    assert_writer_error(/in the middle of a write/) { w.push_value(reader) }
    w.push_value(2).pop
    assert_equal "[2]", w.to_s
  end

  def test_uninitialized_copied_frozen_and_reinitialized_writers
    bare = Jetson::Writer.allocate
    %i[push_array push_object pop pop_all to_s flush].each do |m|
      assert_raises(TypeError) { bare.public_send(m) }
    end
    assert_raises(TypeError) { bare.push_value(1) }
    assert_raises(TypeError) { writer.dup }
    assert_raises(TypeError) { writer.clone }
    assert_raises(TypeError) { writer.send(:initialize) }
    frozen = writer.push_array.freeze
    assert_raises(FrozenError) { frozen.push_value(1) }
    assert_raises(FrozenError) { frozen.pop }
    assert_equal "[", frozen.to_s
  end

  # --- options -------------------------------------------------------------

  def test_option_errors_are_those_of_jetson_generate
    [{ indent: 5 }, { space: :sym }, { object_nl: 1.5 }, { max_nesting: "3" }, { depth: -1 }, { as_json: 5 },
     { buffer_initial_length: "x" }, { sort_keys: "yes" }].each do |opts|
      expected = assert_raises(StandardError) { Jetson.generate(1, opts) }
      error = assert_raises(expected.class, opts.inspect) { Jetson::Writer.new(**opts) }
      assert_equal expected.message, error.message, opts.inspect
    end
  end

  def test_sort_keys_is_refused
    error = assert_raises(ArgumentError) { Jetson::Writer.new(sort_keys: true) }
    assert_match(/sort_keys/, error.message)
    assert_raises(ArgumentError) { Jetson::Writer.new(sort_keys: ->(h) { h }) }
    assert_equal "{}", Jetson::Writer.new(sort_keys: false).push_object.pop.to_s
  end

  # A Hash pushed as a value is checked as Jetson.generate checks it; keys
  # pushed one by one are the caller's and are written as given (a streaming
  # writer keeps no set of the keys it wrote).
  def test_duplicate_keys_pushed_one_by_one_are_written_as_given
    doc = { "a" => 1, a: 2 }
    expected = outcome { quietly { Jetson.generate(doc) } }
    assert_equal expected, outcome { quietly { writer.push_value(doc).to_s } }
    assert_equal Jetson::JSON_RULES >= 3, !expected.last.nil?
    assert_equal '{"a":1,"a":2}', writer.push_object { |w| w.push_value(1, "a").push_value(2, :a) }.to_s
  end

  # As Jetson.generate: json 2 ignored a misspelled option, json 3 raises.
  def test_unknown_options_follow_the_json_rules
    if Jetson::JSON_RULES >= 3
      error = assert_raises(ArgumentError) { writer(unknown: 1) }
      assert_equal "unknown keyword: unknown", error.message
      error = assert_raises(ArgumentError) { writer(unknown: 1, indnt: "  ") }
      assert_equal "unknown keywords: unknown, indnt", error.message
    else
      assert_equal "[]", writer(unknown: 1).push_array.pop.to_s
    end
  end

  def test_buffer_initial_length_accepted
    [1, 16, 100_000, 10**9].each do |n|
      w = writer(buffer_initial_length: n)
      write_structure(w, [{ "a" => "x" * 300 }] * 20)
      assert_equal Jetson.generate([{ "a" => "x" * 300 }] * 20), w.to_s
    end
  end

  def test_io_must_respond_to_write
    assert_raises(TypeError) { Jetson::Writer.new(Object.new) }
    assert_raises(TypeError) { Jetson::Writer.new({ indent: " " }) }
    assert_raises(ArgumentError) { Jetson::Writer.new(nil, { indent: " " }) }
  end
end
