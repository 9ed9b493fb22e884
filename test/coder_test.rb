# frozen_string_literal: true

require "test_helper"
require "json"
require "stringio"
require "tempfile"
require_relative "support/differential"
require_relative "support/subprocess"

# Jetson::Coder against JSON::Coder: the same options, block and document
# through `JSON::Coder.new(...) { ... }.dump` and `Jetson::Coder.new(...) {
# ... }.dump` (and generate, and into an io), the outcomes compared as
# test/support/differential.rb compares them (bytes, encoding and
# frozenness; or exception class, message and invalid_object; and the
# warnings), Floats byte for byte: the documents draw them as every
# differential does (bit patterns, decimals, subnormals, every exponent).
#
#   JETSON_CODER_DOCS=N   random documents (default 2_000)
#   JETSON_CODER_SEED=S   their seed (default: minitest's --seed)
#   JETSON_CODER_DOC=I    run only random document I
class CoderTest < Minitest::Test
  include JetsonSubprocess

  DOCS = Integer(ENV.fetch("JETSON_CODER_DOCS", "2000"))

  class Boom < StandardError; end

  # Blocks handed to both Coders. They are shared by both sides: what they
  # return is built from what they are given, and a Fragment they return is
  # the json gem's, which both paste.
  BLOCKS = {
    none: nil,
    to_s: proc { |object, _is_key| object.to_s },
    key_to_s_value_nil: proc { |object, is_key| is_key ? object.to_s : nil },
    describe: proc { |object, is_key| is_key ? "k:#{object.class}" : { "class" => object.class.to_s, "key" => is_key } },
    identity: proc { |object, _is_key| object },
    raises: proc { |_object, _is_key| raise Boom, "block boom" },
    one_parameter: proc { |object| object.to_s },
    lambda: ->(object, is_key) { is_key ? object.to_s : [object.to_s] },
    lambda_one_parameter: ->(object) { object.to_s },
    symbol: proc { |object, _is_key| object.to_s.to_sym },
    number: proc { |object, is_key| is_key ? 1 : 42 },
    nan_to_nil: proc { |object, _is_key| Float === object ? nil : object.to_s },
    nan_to_itself: proc { |object, _is_key| Float === object ? object : object.to_s },
    fragment: proc { |object, is_key| is_key ? object.to_s : JSON::Fragment.new("[\"frag\"]") },
    scrub: proc { |object, _is_key| String === object ? object.b.force_encoding(Encoding::UTF_8).scrub("?") : object.to_s }
  }.freeze

  # Blocks that may return something other than a String for a String or
  # Symbol: with text that is not UTF-8 the json gem writes such a result as
  # if it were a String (RandomGraph::NON_STRING_AS_JSON), so documents with
  # such text get the to_s block instead.
  NON_STRING_BLOCKS = %i[key_to_s_value_nil describe lambda number fragment nan_to_nil symbol].freeze

  # A Coder's options, as an app passes them.
  PRETTY = [
    { indent: "  ", space: " ", object_nl: "\n", array_nl: "\n" },
    { indent: "\t", object_nl: "\n" },
    { space: " ", space_before: " " },
    { array_nl: "|", indent: "--" }
  ].freeze
  FLAGS = [
    { script_safe: true }, { ascii_only: true }, { ascii_only: true, script_safe: true }, { allow_nan: true },
    { allow_nan: false }, { max_nesting: 3 }, { max_nesting: 0 }, { max_nesting: false }, { depth: 2 },
    { allow_duplicate_key: true }, { allow_duplicate_key: false }, { sort_keys: true }, { buffer_initial_length: 16 },
    { strict: true }, { symbolize_names: true, freeze: true }, { allow_trailing_comma: true },
    { as_json: BLOCKS[:to_s] }
  ].freeze
  # Options each json line answers in its own way (json 3 raises, json 2 ignores or overrides).
  ODD = [{ strict: false }, { unknown_option: 1 }, { indent: 5 }, { as_json: "not a proc" }].freeze

  # A RandomGraph document, NaN and the Infinities (which the Coder hands
  # to its block) more often than in the other differentials.
  class Documents < RandomGraph::Generator
    def float(nan: @nan)
      return pick(NON_FINITE) if nan && @hazards && chance(0.05)

      super
    end

    # json 2.21's strict mode reads a Symbol's name as UTF-8 whatever its
    # encoding, and corrupts memory on one that is not (it crashes the
    # process, then or later): such Symbols are json 3's only.
    def symbol_value
      symbol = super
      JSON_2 && !UTF8_COMPATIBLE.include?(symbol.encoding) ? :a : symbol
    end
  end

  JSON_2 = Gem::Version.new(JSON::VERSION) < Gem::Version.new("3")
  UTF8_COMPATIBLE = [Encoding::UTF_8, Encoding::US_ASCII].freeze

  def setup
    skip "the json gem has no JSON::Coder (json 2.10 and later)" unless defined?(JSON::Coder)
    @mismatches = []
  end

  def teardown
    return if @mismatches.nil? || @mismatches.empty?

    flunk "#{@mismatches.size} mismatching calls:\n\n#{@mismatches.first(8).join("\n\n")}"
  end

  def seed = seed_from("JETSON_CODER_SEED")

  # ---------------------------------------------------------------------------
  # The comparison
  # ---------------------------------------------------------------------------

  # The outcome of the block given, run on one side.
  def outcome
    value, error, warnings = Differential.capturing_warnings { yield }
    Differential::Outcome.new(error ? nil : Differential.normalize(value), error, warnings)
  end

  # Builds a Coder of each side with `args` and `block` (a constructor that
  # raises on either side is compared instead), makes `calls` (names of
  # #call) with each on its side of `pair`'s document, and records every
  # call whose outcomes differ.
  def compare(args, block, pair, calls, label)
    coders = {}
    made = [JSON::Coder, Jetson::Coder].map do |klass|
      outcome { coders[klass] = klass.new(*args.positional, **args.keywords, &block) }
    end
    return record(label, "new", made, pair) unless coders.size == 2

    calls.each do |name|
      a = outcome { call(coders[JSON::Coder], name, pair.json) }
      b = outcome { call(coders[Jetson::Coder], name, pair.jetson) }
      record(label, name, [a, b], pair)
    end
  end

  Args = Struct.new(:positional, :keywords)

  # The arguments of Coder.new for `options` under the json line the app
  # has: json 3's Coder takes keywords, json 2's a Hash.
  def args_for(options)
    return Args.new([], options.transform_keys(&:to_sym)) if Jetson::JSON_RULES >= 3 && options.keys.all?(Symbol)

    Args.new(options.empty? ? [] : [options], {})
  end

  def call(coder, name, document)
    case name
    when :dump then coder.dump(document)
    when :generate then coder.generate(document)
    when :dump_nil then coder.dump(document, nil)
    when :dump_io
      io = StringIO.new
      returned = coder.dump(document, io)
      [:returned_io, returned.equal?(io), io.string]
    when :twice then [coder.dump(document), coder.dump(document)]
    end
  end

  def record(label, name, (a, b), pair)
    kind, info, = Differential.compare_outcomes(a, b, pair)
    return unless kind == :mismatch

    @mismatches << "#{label} #{name}: #{info}\n  json:   #{Differential.describe_outcome(a)}\n  " \
                   "jetson: #{Differential.describe_outcome(b)}"
  end

  def pair_of(document)
    RandomGraph::Pair.new(Differential.spec_of(document), json_fragment: JSON::Fragment, jetson_fragment: JSON::Fragment)
  end

  # One hand-picked document through both, under `options` and each block.
  def check(document, options = {}, blocks: BLOCKS.keys, calls: %i[dump dump_io])
    blocks.each do |name|
      compare(args_for(options), BLOCKS.fetch(name), pair_of(document), calls,
              "#{Differential.safe_inspect(document, 200)} #{options.inspect[0, 120]} block #{name}")
    end
  end

  # ---------------------------------------------------------------------------
  # Random documents
  # ---------------------------------------------------------------------------

  def test_random_documents
    range = ENV["JETSON_CODER_DOC"] ? [Integer(ENV["JETSON_CODER_DOC"])] : (0...DOCS)
    calls = 0
    Differential.with_warnings_enabled do
      range.each do |index|
        rng = Random.new(seed * (2**32) + index)
        documents = Documents.new(rng)
        spec = documents.document
        options = random_options(documents)
        block_name = documents.pick(BLOCKS.keys)
        block_name = :to_s if NON_STRING_BLOCKS.include?(block_name) && RandomGraph.foreign_text?(spec)
        if RandomGraph.cyclic?(spec) && [0, false].include?(options.fetch(:max_nesting, 100))
          options = options.merge(max_nesting: 100) # no unbounded recursion (see Differential::Runner#plan)
        end
        pair = RandomGraph::Pair.new(spec, json_fragment: JSON::Fragment, jetson_fragment: Jetson::Fragment)
        names = [%i[dump generate dump_nil].at(index % 3), :dump_io]
        names << :twice if documents.chance(0.1)
        calls += names.size
        compare(args_for(options), BLOCKS.fetch(block_name), pair, names,
                "seed=#{seed} doc=#{index} (JETSON_CODER_SEED=#{seed} JETSON_CODER_DOC=#{index}) " \
                "block #{block_name} options #{RandomGraph.opts_to_ruby(options)} " \
                "document #{RandomGraph.to_ruby(spec, fragment: "Fragment")[0, 300]}")
      end
    end
    assert_operator calls, :>=, range.size * 2
  end

  def random_options(documents)
    options = {}
    options.merge!(documents.pick(PRETTY)) if documents.chance(0.3)
    documents.rng.rand(3).times { options.merge!(documents.pick(FLAGS)) }
    options.merge!(documents.pick(ODD)) if documents.chance(0.03)
    options.to_a.shuffle(random: documents.rng).to_h
  end

  # ---------------------------------------------------------------------------
  # Hand-picked documents
  # ---------------------------------------------------------------------------

  Point = Struct.new(:x, :y)

  # Values JSON has no type for, as values, inside containers and as keys.
  def test_values_without_a_json_type
    others = [Object.new, 1..2, Rational(1, 3), Point.new(1, "b"), Time.at(0).utc, Class, :sym, 2**70, Comparable]
    others.each do |other|
      check(other)
      check([other, [other], { "k" => other }])
      check({ other => 1, "after" => other })
    end
  end

  # The block's second argument: true for keys that are not Strings or
  # Symbols, false for values; what it returns for a key must be a String
  # (or a Symbol).
  def test_keys_that_are_not_strings_or_symbols
    keys = [1, -(2**64), nil, true, false, 1.5, 100.0, Object.new, [1], { a: 1 }, Point.new(1, 2), 1..2, Class]
    keys.each do |key|
      check({ key => "v" })
      check({ "a" => 1, key => [key], b: { key => key } })
    end
    check({ "1" => 1, 1 => 2 }) # collide once the block turned the key into "1"
    check({ :"1" => 1, 1 => 2 }, { allow_duplicate_key: true })
  end

  def test_nan_and_infinities
    [Float::NAN, Float::INFINITY, -Float::INFINITY].each do |value|
      [{}, { allow_nan: true }, { allow_nan: false }].each do |options|
        check([value, { "v" => value }], options)
        check({ value => 1 }, options)
      end
    end
  end

  def test_floats
    check([1.5, -0.25, 100.0, 0.0, -0.0, 12_345.0, -1.0, { "f" => 1.5 }, 1e23, -452.08798082113333, 1e15, 1e-7,
           5e-324, Float::MAX, 0.1 + 0.2])
    check({ 1.5 => 1, -0.25 => 2, 100.0 => 3, 1e23 => 4, 0.1 + 0.2 => 5 })
  end

  def test_strings_in_other_encodings_and_invalid_utf8
    strings = [String.new("\xFF", encoding: "UTF-8"), String.new("caf\u00e9".b, encoding: "BINARY"),
               String.new("\xFF", encoding: "BINARY"), "caf\u00e9".encode("ISO-8859-1"), "h\u00e9".encode("UTF-16LE")]
    blocks = %i[none to_s identity raises scrub one_parameter]
    blocks << :symbol unless JSON_2 # a Symbol of such text: see Documents#symbol_value
    strings.each do |string|
      check([string], blocks: blocks)
      check({ string => 1 }, blocks: %i[none to_s identity raises scrub one_parameter])
    end
  end

  # A Symbol whose name is not UTF-8 goes to the block once, as a String
  # does; a block that answers with the same Symbol gets no second call
  # (Jetson once called it again and again, without end).
  def test_symbols_whose_names_are_not_utf8
    skip "json 2.21 corrupts memory on them (see Documents#symbol_value)" if JSON_2
    symbols = ["h\u00e9".encode("UTF-16LE").to_sym, "caf\xE9".b.force_encoding("ISO-8859-1").to_sym]
    symbols.each do |symbol|
      [[symbol], { "k" => symbol }, { symbol => 1 }, [[symbol, :a]]].each do |document|
        check(document, blocks: %i[none to_s identity raises symbol scrub one_parameter])
      end
    end
  end

  def test_options
    doc = { "html" => "</script>\u2028\u2029", "\u00e9t\u00e9" => [1, { "x" => [] }, {}], sym: :"\u{1F600}",
            "other" => Point.new(1, [2]) }
    (PRETTY + FLAGS + ODD).each do |options|
      check(doc, options, blocks: %i[none to_s describe])
    end
    check(doc, PRETTY.first.merge(script_safe: true, ascii_only: true))
    check(doc, { indent: "  ", object_nl: "\n", depth: 3 })
    check(doc, { rfc8785: true }) if RandomGraph::Generator::RFC8785
  end

  # The block wins over an as_json: option; either alone is the Coder's.
  def test_a_block_and_an_as_json_option
    doc = [Object.new, 1..2]
    check(doc, { as_json: BLOCKS[:to_s] }, blocks: %i[none describe])
    check(doc, { as_json: nil }, blocks: %i[none to_s])
    check(doc, { as_json: false }, blocks: %i[none to_s])
  end

  def test_nesting
    deep = 5.times.reduce(Object.new) { |inner, _| [inner] }
    [{}, { max_nesting: 4 }, { max_nesting: 5 }, { max_nesting: 6 }, { max_nesting: 0 }, { depth: 98 }].each do |options|
      check(deep, options, blocks: %i[to_s describe])
    end
    # What the block returns is one level deeper.
    check([[Object.new]], { max_nesting: 2 }, blocks: %i[describe lambda])
    check([[Object.new]], { max_nesting: 3 }, blocks: %i[describe lambda])
  end

  # json 2's Coder.new takes a Hash (or nil); json 3's takes keywords only.
  def test_how_new_takes_its_options
    [[], [nil], [{}], [{ indent: " " }], [{ "indent" => " " }], [{}, {}], [5]].each do |positional|
      compare(Args.new(positional, {}), BLOCKS[:to_s], pair_of([Object.new]), %i[dump], "new(#{positional.inspect})")
    end
    [{ object_class: Hash, array_class: Array, on_load: proc { |x| x } }, { decimal_class: Float },
     { strict: nil }, { strict: true, indent: " " }].each do |keywords|
      compare(Args.new([], keywords), BLOCKS[:to_s], pair_of([Object.new]), %i[dump], "new(**#{keywords.inspect})")
    end
  end

  def test_a_json_fragment_in_the_document_and_from_the_block
    check([JSON::Fragment.new("[1, 2]"), { "f" => JSON::Fragment.new("{}") }], blocks: %i[none fragment to_s])
    check([Object.new], { script_safe: true }, blocks: %i[fragment])
  end

  # A document larger than the io's chunks: the same bytes land in the io,
  # a StringIO's and a File's.
  def test_dump_into_an_io
    doc = Array.new(3000) { |i| { "id" => i, "at" => Time.at(i).utc, "tags" => [:a, "b" * (i % 50)] } }
    check(doc, {}, blocks: %i[to_s describe], calls: %i[dump dump_io])
    json = JSON::Coder.new(&BLOCKS[:to_s]).dump(doc)
    Tempfile.create("coder") do |file|
      assert_same file, Jetson::Coder.new(&BLOCKS[:to_s]).dump(doc, file)
      file.flush
      assert_equal json.b, File.binread(file.path)
    end
  end

  # ---------------------------------------------------------------------------
  # Frozen, shared by threads and by Ractors
  # ---------------------------------------------------------------------------

  def test_a_frozen_coder_dumps_as_before
    doc = { "a" => [Object.new, 1..3] }
    json = JSON::Coder.new(indent: " ", &BLOCKS[:to_s])
    jetson = Jetson::Coder.new(indent: " ", &BLOCKS[:to_s])
    assert_equal json.frozen?, jetson.frozen?
    assert_equal Differential.strip_addresses(json.dump(doc)),
                 Differential.strip_addresses(jetson.freeze.dump(doc))
    assert_predicate jetson, :frozen?
  end

  def test_threads_share_one_coder
    coder = Jetson::Coder.new(object_nl: "\n", &BLOCKS[:describe])
    docs = Array.new(8) { |i| { "n" => i, "list" => Array.new(200) { |j| [j, 1..j, { j => "x" * j }] } } }
    expected = docs.map { |doc| JSON::Coder.new(object_nl: "\n", &BLOCKS[:describe]).dump(doc) }
    results = Array.new(4) { Thread.new { Array.new(20) { |i| coder.dump(docs[i % 8]) } } }.map(&:value)
    results.each { |list| list.each_with_index { |json, i| assert_equal expected[i % 8], json } }
  end

  # As JSON::Coder: Ractor.make_shareable(coder) makes a Coder whose block
  # is shareable shareable, and refuses one whose block is not.
  def test_ractors
    out = ractor_output(<<~RUBY)
      require "json"
      block = nil.instance_eval { proc { |object, is_key| is_key ? object.to_s : [object.to_s] } }
      coders = [JSON::Coder, Jetson::Coder].map { |klass| Ractor.make_shareable(klass.new(space: " ", &block)) }
      doc = { 1 => [1..2, :a], "b" => Object }
      p coders.map { |coder| Ractor.shareable?(coder) }
      p coders.map { |coder| ractor_value(Ractor.new(coder, doc) { |c, d| c.dump(d) }) }
      p JSON::Coder.new(space: " ", &block).dump(doc)
      unshareable = proc { |object| object.to_s }
      p [JSON::Coder, Jetson::Coder].map { |klass|
        begin
          Ractor.make_shareable(klass.new(&unshareable))
          "shareable"
        rescue => e
          [e.class.name, e.message]
        end
      }
    RUBY
    shareable, in_ractors, in_main, unshareable = out.lines.map { |line| eval(line) } # rubocop:disable Security/Eval
    assert_equal [true, true], shareable
    assert_equal [in_main, in_main], in_ractors
    assert_equal 1, unshareable.uniq.size, unshareable.inspect
    refute_equal "shareable", unshareable.first
  end
end
