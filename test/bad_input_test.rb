# frozen_string_literal: true

require "test_helper"
require "support/subprocess"
require "support/json_oracle"

# Bad input must end in a Ruby exception like the json gem's, never a crash.
class BadInputTest < Minitest::Test
  include JSONOracle
  include JetsonSubprocess

  def deep_array(levels)
    doc = []
    levels.times { doc = [doc] }
    doc
  end

  # Under valgrind (rake memcheck) the stack limit is valgrind's own, not the
  # one Ruby measures, so the stack-guard tests only run natively.
  def skip_under_valgrind
    skip "stack guard is not testable under valgrind" if ENV["JETSON_MEMCHECK"]
  end

  def test_a_million_levels_without_max_nesting_raises_instead_of_crashing
    skip_under_valgrind
    doc = deep_array(1_000_000)
    assert_raises(SystemStackError) { Jetson.generate(doc, max_nesting: false) }
    assert_raises(SystemStackError) { Jetson.dump(doc, max_nesting: false) }
    # json 2's dump has no nesting limit; json 3's has the ordinary one.
    assert_raises(Jetson::JSON_RULES >= 3 ? Jetson::NestingError : SystemStackError) { Jetson.dump(doc) }
    # The process is still healthy afterwards.
    assert_equal "[[]]", Jetson.generate([[]])
  end

  def test_deep_nesting_in_a_thread_with_a_small_stack
    skip_under_valgrind
    doc = deep_array(1_000_000)
    error = Thread.new do
      Jetson.generate(doc, max_nesting: false)
      nil
    rescue SystemStackError => e
      e
    end.value
    assert_kind_of SystemStackError, error
  end

  # An object whose to_json generates its own document, nested: each level
  # is a generate call, whose C frame (the stack buffer and the key caches)
  # comes out of the thread's stack. In a thread of Ruby's default size, as
  # puma's are, 82 levels went through in 2026-12; a short-key table of 512
  # entries on the frame (24 KiB more) brought that to 33, and was reverted.
  class GeneratingNode
    def initialize(inner, generator)
      @inner = inner
      @generator = generator
    end

    def to_json(*) = @generator.generate(["p" * 3000, @inner])
  end

  def test_nested_generates_through_to_json_in_a_thread
    skip_under_valgrind
    levels = 50
    chain = ->(generator) { levels.times.reduce(1) { |inner, _| GeneratingNode.new(inner, generator) } }
    expected = JSON.generate([chain.call(JSON)])
    actual = Thread.new { Jetson.generate([chain.call(Jetson)]) }.value
    assert_equal expected, actual
  end

  def test_moderately_deep_documents_still_work
    doc = deep_array(5_000)
    assert_equal JSON.generate(doc, max_nesting: false), Jetson.generate(doc, max_nesting: false)
  end

  def test_to_json_that_raises
    klass = Class.new { def to_json(*) = raise(IOError, "broken to_json") }
    assert_generate_same([1, { "a" => klass.new }])
  end

  def test_to_json_returning_garbage
    [42, nil, :sym, [1], Object.new].each do |garbage|
      klass = Class.new { define_method(:to_json) { |*| garbage } }
      assert_generate_same([klass.new])
    end
  end

  def test_to_s_returning_garbage
    klass = Class.new do
      undef_method :to_json if method_defined?(:to_json)
      def to_s = 42
    end
    error = assert_raises(TypeError) { Jetson.generate([klass.new]) }
    assert_match(/Integer/, error.message)
  end

  def test_string_subclass_key_with_bad_to_s
    klass = Class.new(String) { def to_s = 1 }
    assert_generate_same({ klass.new("k") => 1 })
  end

  def test_invalid_utf8_everywhere
    ["\xff", "abc\xC3", "\xED\xA0\x80", "ok" * 40 + "\xfe"].each do |bad|
      assert_generate_same([bad])
      assert_generate_same({ bad => 1 })
      assert_generate_same([bad], ascii_only: true)
      assert_generate_same([bad], script_safe: true)
      assert_generate_same([bad], strict: true)
      assert_generate_same([bad], strict: true, as_json: ->(s, _k) { s.scrub })
      assert_generate_same({ bad => 1 }, strict: true, as_json: ->(s, _k) { s.scrub })
    end
  end

  def test_as_json_that_raises_or_misbehaves
    assert_generate_same([Object.new], strict: true, as_json: ->(_o, _k) { raise "nope" })
    assert_generate_same([Object.new], strict: true, as_json: ->(o, _k) { o })
    assert_generate_same({ Object.new => 1 }, strict: true, as_json: ->(_o, _k) { 5 })
  end

  # The json gem misreads a Symbol here (it may even crash); Jetson must end
  # with an error instead of asking as_json again and again.
  def test_as_json_bouncing_an_unconvertible_value_terminates
    latin1 = String.new("caf\xE9", encoding: "ISO-8859-1")
    error = assert_raises(Jetson::GeneratorError) do
      Jetson.generate([latin1], strict: true, as_json: ->(o, _) { o.to_s.to_sym })
    end
    assert_equal "source sequence is illegal/malformed utf-8", error.message
  end

  def test_wrong_option_types
    [{ indent: 1 }, { space: [] }, { max_nesting: "a" }, { depth: "a" }, { depth: 2**40 },
     { buffer_initial_length: 1.5 }, { sort_keys: "yes" }, { as_json: "x" }].each do |opts|
      assert_generate_same([1], opts)
      assert_both(-> { JSON::State.new(opts) }.then { |f| -> { f.call.to_h } },
                  -> { Jetson::State.new(opts) }.then { |f| -> { f.call.to_h } }, opts.inspect)
    end
  end

  def test_redefined_symbol_to_s_is_honoured
    Symbol.class_eval { alias_method :jetson_original_to_s, :to_s; def to_s = "redefined" }
    assert_generate_same([:a, { b: :c }])
  ensure
    Symbol.class_eval { alias_method :to_s, :jetson_original_to_s; remove_method :jetson_original_to_s }
  end

  # The json gem writes a Bignum's Integer#to_s, redefined or not, and
  # raises TypeError when it returns something that is not a String (its
  # test_broken_bignum). A child process: Integer#to_s is everyone's.
  def test_redefined_integer_to_s_for_a_bignum
    skip_subprocess_under_valgrind
    script = <<~RUBY
      require "json"
      require "jetson"
      Integer.prepend(Module.new do
        def to_s(*args)
          return super unless bit_length > 64
          case $mode
          when "string" then "redefined"
          when "to_str" then Object.new.tap { |o| o.define_singleton_method(:to_str) { "via_to_str" } }
          else nil
          end
        end
      end)
      %w[string to_str nil].each do |mode|
        $mode = mode
        [[1 << 64, 2], -(1 << 70), { "k" => 1 << 80 }].each do |doc|
          [[:generate, {}], [:pretty_generate, {}], [:generate, { strict: true }]].each do |method, opts|
            json, jetson = [JSON, Jetson].map do |mod|
              mod.public_send(method, doc, opts)
            rescue TypeError => e
              "TypeError: \#{e.message}"
            end
            puts [mode, doc.inspect[0, 20], method, json == jetson ? "same" : "json \#{json.inspect} jetson \#{jetson.inspect}"].join(" ")
          end
        end
      end
    RUBY
    lines = ruby_output(script).lines.map(&:chomp)
    assert_equal 27, lines.size
    assert_empty lines.reject { _1.end_with?(" same") }
    # Not two equal mistakes: the redefinition is what is written.
    out = ruby_output(<<~RUBY)
      require "jetson"
      Integer.prepend(Module.new { def to_s(*) = bit_length > 64 ? "redefined" : super })
      puts Jetson.generate([1 << 64, 1])
    RUBY
    assert_equal "[redefined,1]\n", out
  end

  def test_mutating_the_document_from_to_json
    arr = [1, 2, 3]
    shrink = Class.new { define_method(:to_json) { |*| arr.clear; '"x"' } }
    arr.insert(1, shrink.new)
    assert_equal '[1,"x"]', Jetson.generate(arr)
  end

  # A to_json in the middle of a run of Integers that shrinks or grows the
  # Array: what follows is read from the Array as it is then, as the json gem
  # does.
  def test_a_to_json_that_changes_an_integer_array
    build = lambda do |change|
      arr = [1, 2, 3]
      changer = Class.new { define_method(:to_json) { |*| change.call(arr); '"x"' } }
      arr.insert(2, changer.new)
      arr.concat([4, 5, 6])
    end
    changes = [->(a) { a.pop(2) }, ->(a) { a.push(*(7..40)) }, ->(a) { a.replace([9] * 500 + [8]) }, ->(a) { a.clear }]
    changes.each_with_index do |change, i|
      assert_equal JSON.generate(build.call(change)), Jetson.generate(build.call(change)), "change #{i}"
    end
  end

  # The same for runs of Strings and Symbols, which the same loop writes.
  def test_a_to_json_that_changes_a_string_array
    build = lambda do |change|
      arr = ["a", :b, "c"]
      changer = Class.new { define_method(:to_json) { |*| change.call(arr); '"x"' } }
      arr.insert(2, changer.new)
      arr.concat(["d", :e, "f"])
    end
    changes = [->(a) { a.pop(2) }, ->(a) { a.push(*("g".."z")) }, ->(a) { a.replace(["n"] * 500 + [:m]) }, ->(a) { a.clear },
               ->(a) { a.each { |e| e.replace("changed") if e.is_a?(String) && !e.frozen? } }]
    changes.each_with_index do |change, i|
      assert_equal JSON.generate(build.call(change)), Jetson.generate(build.call(change)), "change #{i}"
    end
  end
end
