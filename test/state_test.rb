# frozen_string_literal: true

require "test_helper"
require "support/json_oracle"

class StateTest < Minitest::Test
  include JSONOracle

  OPTIONS = {
    indent: "  ", space: " ", space_before: "", object_nl: "\n", array_nl: "\n", allow_nan: true,
    max_nesting: 10, depth: 1, ascii_only: true, script_safe: true, strict: false, buffer_initial_length: 64
  }.freeze

  def test_to_h_lists_the_same_options_as_the_json_gem
    [{}, OPTIONS, { allow_duplicate_key: false }, { max_nesting: false }].each do |opts|
      expected = JSON::State.new(opts).to_h
      actual = Jetson::State.new(opts).to_h
      assert_equal expected, actual
    end
  end

  def test_accessors_and_setters
    state = Jetson::State.new
    json = JSON::State.new
    %i[indent space space_before object_nl array_nl].each do |name|
      state.public_send(:"#{name}=", "\t")
      json.public_send(:"#{name}=", "\t")
      assert_equal json.public_send(name), state.public_send(name)
      state.public_send(:"#{name}=", nil)
      json.public_send(:"#{name}=", nil)
      assert_equal json.public_send(name), state.public_send(name)
    end
    state.max_nesting = 3
    assert_equal 3, state.max_nesting
    assert state.check_circular?
    state.max_nesting = false
    refute state.check_circular?
    if Jetson::JSON_RULES >= 3 # the alias is gone in json 3
      refute_respond_to state, :escape_slash=
      assert_equal JSON::State.new.respond_to?(:escape_slash=), state.respond_to?(:escape_slash=)
      state.script_safe = true
      assert state.script_safe?
    else
      state.escape_slash = true
      assert state.script_safe?
      assert state.escape_slash?
    end
    state.depth = 2
    assert_equal 2, state.depth
    assert_raises(ArgumentError) { state.depth = -1 }
    assert_raises(TypeError) { state.indent = 1 }
    assert_raises(TypeError) { state.sort_keys = 1 }
    state.sort_keys = true
    assert_kind_of Proc, state.sort_keys
  end

  def test_generate_with_a_state_matches
    [{}, OPTIONS, { strict: true }].each do |opts|
      doc = { "a" => [1, 2.5, "é/", nil, { b: true }], "c" => Float::NAN }
      assert_both(-> { JSON::State.new(opts).generate(doc) }, -> { Jetson::State.new(opts).generate(doc) }, opts.inspect)
      assert_both(-> { JSON.generate(doc, JSON::State.new(opts)) }, -> { Jetson.generate(doc, Jetson::State.new(opts)) },
                  opts.inspect)
    end
  end

  def test_generate_into_an_io
    require "stringio"
    doc = Array.new(5000) { |i| { "n" => i, "s" => "é" * (i % 7) } }
    io = StringIO.new
    assert_same io, Jetson::State.new.generate(doc, io)
    assert_equal JSON.generate(doc), io.string
  end

  def test_frozen_state_can_generate_but_not_change
    state = Jetson::State.new(indent: " ").freeze
    assert_equal JSON::State.new(indent: " ").freeze.generate([1]), state.generate([1])
    assert_raises(FrozenError) { state.indent = "x" }
    assert_raises(FrozenError) { state.configure(indent: "x") }
  end

  def test_depth_is_untouched_after_errors
    state = Jetson::State.new(depth: 2, max_nesting: 3)
    assert_raises(Jetson::NestingError) { state.generate([[[1]]]) }
    assert_equal 2, state.depth
    assert_raises(Jetson::GeneratorError) { state.generate([Float::NAN]) }
    assert_equal 2, state.depth
  end

  def test_configure_and_merge
    state = Jetson::State.new
    assert_same state, state.configure(indent: "x")
    assert_equal "x", state.indent
    state.merge(Jetson::State.new(space: " "))
    json = JSON::State.new(indent: "x").merge(JSON::State.new(space: " "))
    assert_equal [json.indent, json.space], [state.indent, state.space]
    assert_raises(TypeError) { state.configure(5) }
    copy = state.dup
    copy.indent = "y"
    assert_equal "", state.indent
  end

  def test_to_json_receives_a_state_carrying_options_and_depth
    seen = nil
    probe = Class.new { define_method(:to_json) { |state = nil, *| seen = state; '"p"' } }
    Jetson.generate({ "a" => [probe.new] }, indent: "  ", max_nesting: 7)
    assert_kind_of JSON::State, seen # the json gem is loaded: its State keeps to_json chains working
    assert_equal "  ", seen.indent
    assert_equal 7, seen.max_nesting
    assert_equal 2, seen.depth
  end
end
