# frozen_string_literal: true

require "test_helper"
require_relative "support/subprocess"

# GC-safety, Ractor-safety and the promise not to touch anything outside Jetson.
class SafetyTest < Minitest::Test
  include JetsonSubprocess

  DOC = {
    "ints" => [1, -2, 2**70], "floats" => [1.5, 1e20, -0.0], "str" => "é😀\u2028</script>" * 3,
    :sym => :val, "nested" => [{ "a" => [nil, true, false] }] * 3, "big" => "x" * 5000
  }.freeze

  def with_gc_stress
    GC.stress = true
    yield
  ensure
    GC.stress = false
  end

  def test_generation_under_gc_stress
    expected = JSON.generate(DOC)
    pretty = JSON.pretty_generate(DOC)
    custom = Class.new { def to_json(*args) = { "k" => [1, "v"] }.to_json(*args) }
    with_custom = [DOC, custom.new]
    expected_custom = JSON.generate(with_custom, indent: " ")
    with_gc_stress do
      assert_equal expected, Jetson.generate(DOC)
      assert_equal pretty, Jetson.pretty_generate(DOC)
      assert_equal expected, Jetson::State.new.generate(DOC)
      assert_equal expected_custom, Jetson.generate(with_custom, indent: " ")
      assert_raises(Jetson::GeneratorError) { Jetson.generate(["\xff"]) }
      assert_raises(Jetson::NestingError) { Jetson.generate([[[]]], max_nesting: 2) }
    end
  end

  def test_state_options_survive_gc_compaction
    skip "GC compaction unavailable" unless GC.respond_to?(:verify_compaction_references)
    doc = DOC.transform_keys(&:to_s)
    state = Jetson::State.new(indent: +"  ", object_nl: +"\n", sort_keys: ->(h) { h.sort.to_h })
    GC.verify_compaction_references(double_heap: true, toward: :empty)
    assert_equal JSON.generate(doc, indent: "  ", object_nl: "\n", sort_keys: true), state.generate(doc)
    # The extension's handles to its classes must survive objects moving.
    assert_raises(Jetson::GeneratorError) { Jetson.generate([Object.new], strict: true) }
    assert_raises(Jetson::NestingError) { Jetson.generate([[1]], max_nesting: 1) }
    assert_equal '[{"a":1}]', Jetson.generate([Jetson::Fragment.new('{"a":1}')])
    assert_equal "[1]", Jetson::State.new.generate([1])
  end

  def test_ractors_can_generate
    output = ractor_output(<<~RUBY)
      ractors = 2.times.map do |i|
        Ractor.new(i) do |n|
          # Symbol keys and values: each Ractor has its own Symbol name cache.
          Jetson.generate([{ "n" => n, "s" => "é" * n }, { sym_key: :sym_value, other: [:a, :b] }])
        end
      end
      print ractors.map { |r| ractor_value(r) }.join(",")
    RUBY
    expected = [0, 1].map { |n| JSON.generate([{ "n" => n, "s" => "é" * n }, { sym_key: :sym_value, other: %i[a b] }]) }
    assert_equal expected.join(","), output
  end

  # Symbol names are cached per Ractor (symbol_names.c); compaction must not
  # leave a cached name behind, and Symbols sharing a slot must not mix.
  def test_symbol_names_survive_compaction_and_collisions
    skip "no GC.compact" unless GC.respond_to?(:compact)
    # Symbol literals in parsed code are static Symbols (String#to_sym makes
    # dynamic ones); more of them than the cache has slots.
    before = ObjectSpace.count_objects[:T_SYMBOL]
    names = eval("[#{Array.new(1200) { |i| ":jetson_static_symbol_#{i}" }.join(", ")}]") # rubocop:disable Security/Eval
    assert_operator ObjectSpace.count_objects[:T_SYMBOL] - before, :<, 100, "expected static Symbols"
    doc = names.each_with_index.to_h { |name, i| [name, i.even? ? name : i] }
    expected = JSON.generate(doc)
    assert_equal expected, Jetson.generate(doc)
    GC.compact
    assert_equal expected, Jetson.generate(doc)
    assert_equal JSON.generate(names.reverse), Jetson.generate(names.reverse)
  end

  # require "jetson" defines Jetson and nothing else: no constants, no methods
  # on core classes, and it does not load the json gem.
  def test_nothing_outside_jetson_is_defined_or_patched
    script = <<~RUBY
      core = [Object, Kernel, String, Symbol, Integer, Float, Hash, Array, NilClass, TrueClass, FalseClass]
      methods_before = core.to_h { |c| [c, c.instance_methods(false).sort + c.private_instance_methods(false).sort] }
      singleton_before = core.to_h { |c| [c, c.singleton_methods.sort] }
      constants_before = Object.constants
      require "jetson"
      changed = core.reject { |c| c.instance_methods(false).sort + c.private_instance_methods(false).sort == methods_before[c] }
      changed += core.reject { |c| c.singleton_methods.sort == singleton_before[c] }
      print [(Object.constants - constants_before).sort, changed.uniq.map(&:name), defined?(::JSON).inspect].inspect
    RUBY
    assert_equal "[[:Jetson], [], \"nil\"]", ruby_output(script, ruby_flags: ["--disable-gems"])
  end

  # rake test:asan (test/asan/README.md) names its build in JETSON_EXTENSION;
  # a run that silently loaded the ordinary build would check nothing.
  def test_the_build_named_by_jetson_extension_is_the_one_loaded
    skip "JETSON_EXTENSION is not set (rake test:asan sets it)" unless ENV["JETSON_EXTENSION"]

    assert_equal [File.expand_path(ENV["JETSON_EXTENSION"])], $LOADED_FEATURES.grep(%r{/jetson\.so\z})
    child = ruby_output('require "jetson"; print $LOADED_FEATURES.grep(%r{/jetson\.so\z}).join(",")')
    assert_equal File.expand_path(ENV["JETSON_EXTENSION"]), child
  end

  def test_works_without_the_json_gem_loaded
    script = <<~RUBY
      require "jetson"
      custom = Class.new { def to_json(state = nil, *) = "[" + state.class.name + "," + state.depth.to_s + "]" }
      plain = Class.new { def to_s = "plain" }
      sub = Class.new(Hash)
      print Jetson.generate({ "a" => [custom.new, plain.new, :sym, sub[1, 2]] })
    RUBY
    assert_equal '{"a":[[Jetson::State,2],"plain","sym",{"1":2}]}', ruby_output(script, ruby_flags: ["--disable-gems"])
  end
end

# Repeated keys are copied from where they were first written (json/key_cache.h,
# used by json/pairs.c). Ruby code running mid-document (to_json, as_json, sort_keys) may
# free keys and reuse their memory, so the cache must forget everything then.
class KeyCacheTest < Minitest::Test
  def test_repeated_keys_with_ruby_code_in_between_under_gc_stress
    churn = Class.new do
      def initialize(doc) = @doc = doc
      def to_json(*args)
        # Drop records (and with them their key Strings) and make new ones.
        @doc.pop(3) if @doc.size > 10
        20.times { |i| { "k#{i}" => i }.keys }
        { "churn" => true }.to_json(*args)
      end
    end
    records = Array.new(60) { |i| { "name#{i % 7}" => "v" * (i % 40), :"sym#{i % 5}" => i, "nested" => { "name#{i % 3}" => i } } }
    # Each side gets its own copy, since the callbacks mutate the document.
    json_doc = Marshal.load(Marshal.dump(records))
    jetson_doc = Marshal.load(Marshal.dump(records))
    [json_doc, jetson_doc].each do |d|
      d.insert(20, churn.new(d))
      d.insert(40, churn.new(d))
    end
    expected = JSON.generate(json_doc)
    GC.stress = true
    actual = Jetson.generate(jetson_doc)
    GC.stress = false
    assert_equal expected, actual
  ensure
    GC.stress = false
  end

  def test_repeated_keys_in_every_escape_mode
    doc = Array.new(300) { |i| { "key/\u2028é#{i % 4}" => i, :"s\"#{i % 3}" => [i] } }
    [{}, { script_safe: true }, { ascii_only: true }, { indent: " ", object_nl: "\n" }].each do |opts|
      assert_equal JSON.generate(doc, opts), Jetson.generate(doc, opts), opts.inspect
    end
  end
end
