# frozen_string_literal: true

require "test_helper"
require "jetson/rails"
require "active_model"
require "support/rails_graph"
require "support/differential"
require "support/rails_oracle"

# Differential tests of Rails mode: every graph is encoded by
# ActiveSupport::JSON.encode with ActiveSupport's own encoder and with
# Jetson::RailsEncoder, under the same settings, and the outcomes (bytes, or
# exception class and message) must be the same. The stock encoder is the
# one the app would have (JSONGemCoderEncoder on 8.1, see
# Jetson::Rails.reference_encoder), and on 8.1 JSONGemEncoder too, each with
# Jetson writing that one's bytes (RailsOracle: the oracle of 8.0 under json 3).
#
#   JETSON_RAILS_DOCS=N  number of random graphs (default 3_000)
#   JETSON_RAILS_SEED=S  base seed (default: minitest's --seed)
#   JETSON_DIFF_VERBOSE=1  print how many graphs were compared
#
# Bytes are compared exactly, Floats included: Jetson prints the digits of the
# json gem under ActiveSupport.
class RailsDifferentialTest < Minitest::Test
  DOCS = Integer(ENV.fetch("JETSON_RAILS_DOCS", "3000"))
  DEFAULT = Jetson::Rails::EncodingRules.default_encoder
  SETTINGS = %i[escape_html_entities_in_json use_standard_json_time_format time_precision
                escape_js_separators_in_json].select { ActiveSupport::JSON::Encoding.respond_to?(_1) }.freeze
  # Per-call options: each ActiveSupport takes what it knows and hands the
  # rest to as_json.
  CALL_OPTIONS = [nil, { escape: false }, { escape_html_entities: false }, { escape_html_entities: true },
                  { escape: false, escape_html_entities: true }].freeze

  def setup
    @saved = SETTINGS.to_h { |name| [name, ActiveSupport::JSON::Encoding.public_send(name)] }
    @saved_zone = Time.zone
  end

  def teardown
    @saved.each { |name, value| ActiveSupport::JSON::Encoding.public_send(:"#{name}=", value) }
    RailsOracle.restore_encoders
    Time.zone = @saved_zone
  end

  # Each of ActiveSupport's encoders in turn, Jetson writing its bytes.
  def each_reference
    RailsOracle.reference_encoders.each do |encoder|
      Jetson::Rails.reference_encoder = encoder
      @stock = RailsOracle.stock(encoder)
      yield encoder
    end
  ensure
    Jetson::Rails.reference_encoder = nil
  end

  def stock
    @stock || RailsOracle.stock
  end

  def seed = seed_from("JETSON_RAILS_SEED")

  # [:ok, bytes, warning count] or [:error, class, message, warning count].
  def outcome(encoder, value, options)
    ActiveSupport.json_encoder = encoder
    result, error, warnings = Differential.capturing_warnings { ActiveSupport::JSON.encode(value, options) }
    return [:ok, result, warnings.size] unless error
    raise error unless error.is_a?(StandardError) || error.is_a?(SystemStackError)

    [:error, error.class, error.message.gsub(/0x\h+/, "0x…"), warnings.size]
  ensure
    ActiveSupport.json_encoder = DEFAULT
  end

  # Returns nil when the outcomes agree, else a description.
  def difference(value, options)
    stock = outcome(self.stock, value, options)
    jetson = outcome(Jetson::RailsEncoder, value, options)
    # Warnings are compared when both succeed: ActiveSupport warns while
    # writing, after every as_json ran, so a failing call may stop before.
    if stock[0] == :error && jetson[0] == :error
      stock.pop
      jetson.pop
    end
    return nil if stock == jetson
    if stock[0] == :ok && jetson[0] == :ok
      a = stock[1].gsub(/0x\h+/, "0x…")
      b = jetson[1].gsub(/0x\h+/, "0x…")
      return nil if a == b
    end
    "ActiveSupport: #{stock.inspect[0, 600]}\nJetson:        #{jetson.inspect[0, 600]}"
  end

  def assert_same_encoding(value, options = nil)
    problem = difference(value, options)
    assert_nil problem, "encode(#{value.inspect[0, 200]}, #{options.inspect})\n#{problem}"
  end

  def apply_random_settings(rng)
    ActiveSupport::JSON::Encoding.escape_html_entities_in_json = rng.rand(4) != 0
    ActiveSupport::JSON::Encoding.use_standard_json_time_format = rng.rand(5) != 0
    ActiveSupport::JSON::Encoding.time_precision = [3, 3, 0, 1, 6, 9, 12].sample(random: rng)
    ActiveSupport::JSON::Encoding.escape_js_separators_in_json = rng.rand(2).zero? if SETTINGS.include?(:escape_js_separators_in_json)
  end

  # RailsGraph's options, with per-call escaping options now and then.
  def random_options(rng)
    options = RailsGraph.options(rng)
    extra = CALL_OPTIONS.sample(random: rng) if rng.rand(3).zero?
    extra ? (options || {}).merge(extra) : options
  end

  def test_random_graphs
    failures = []
    compared = Hash.new(0)
    each_reference do |encoder|
      DOCS.times do |i|
        compared[encoder.name] += 1
        rng = Random.new(seed + i)
        apply_random_settings(rng)
        value = RailsGraph.build(rng, raising: rng.rand(20).zero?)
        options = random_options(rng)
        problem = difference(value, options)
        failures << "#{encoder.name}, graph #{i} (seed #{seed + i}):\n#{problem}" if problem
        break if failures.size >= 5
      end
    end
    if ENV["JETSON_DIFF_VERBOSE"]
      puts "\nrails differential: #{compared.map { |name, n| "#{n} graphs against #{name}" }.join(", ")}, " \
           "#{failures.size} mismatches (seed #{seed})"
    end
    assert_empty failures, failures.join("\n\n")
  end

  def test_type_matrix_under_every_setting
    Time.zone = "Tokyo"
    values = [nil, true, false, 0, -1, 2**70, 1.5, -0.0, 1e20, 1.0e-7, Float::NAN, Float::INFINITY, "", "<>&",
              "\u2028\u2029", "caf\u00e9", :sym, BigDecimal("1234.5600"), BigDecimal("NaN"), Rational(1, 3),
              Time.utc(2024, 5, 6, 7, 8, 9, 123_456.789r), Time.at(0).localtime("+05:30"), Time.zone.at(1_700_000_000.5),
              ActiveSupport::TimeZone["UTC"].at(0), Date.new(2024, 2, 29), Date.new(1000, 1, 1), DateTime.new(2024, 1, 2, 3, 4, 5),
              1..2, /re/, String, Comparable, RailsGraph::Point.new(1, 2), RailsGraph::Plain.new(1, "b"),
              RailsGraph::Hashy.new({ a: 1 }), RailsGraph::Card.new("c", [Time.utc(2000)]), RailsGraph::OwnTime.at(0),
              RailsGraph::PlainTime.at(0).utc, RailsGraph::OwnDate.new(2020, 1, 1), Jetson::Fragment.new("[1]"),
              URI("http://x.test/?a=<b>"), Pathname("/a/b"), { 1 => "a", "1" => "b", :"1" => "c" }, { a: 1, "a" => 2 },
              RailsGraph::HashSub[{ a: 1 }], RailsGraph::ArraySub[1, 2], RailsGraph::StrSub.new("s")]
    separators = SETTINGS.include?(:escape_js_separators_in_json) ? [true, false] : [true]
    each_reference do
      [true, false].product([true, false], [0, 3, 9, 12], separators) do |html, standard, precision, js|
        ActiveSupport::JSON::Encoding.escape_html_entities_in_json = html
        ActiveSupport::JSON::Encoding.use_standard_json_time_format = standard
        ActiveSupport::JSON::Encoding.time_precision = precision
        ActiveSupport::JSON::Encoding.escape_js_separators_in_json = js if separators.size > 1
        values.each { |v| assert_same_encoding([v]) }
        CALL_OPTIONS.each { |options| assert_same_encoding(values, options) }
        assert_same_encoding(values.each_with_index.to_h { |v, i| ["k#{i}", v] }, { except: ["k1"] })
      end
    end
  end

  def test_bad_input_raises_what_active_support_raises
    cyclic = []
    cyclic << cyclic
    cyclic_hash = {}
    cyclic_hash[:self] = cyclic_hash
    deep = (1..150).reduce([]) { |inner, _| [inner] }
    values = [[String.new("\xFF", encoding: "UTF-8")], { "k" => String.new("\xC3", encoding: "UTF-8") },
              [RailsGraph::Raises.new], deep, [deep, RailsGraph::Raises.new], { String.new("\xFF", encoding: "UTF-8") => 1 }]
    # Cycles end in SystemStackError, whose stack limit under valgrind is valgrind's own.
    values += [cyclic, cyclic_hash] unless ENV["JETSON_MEMCHECK"]
    each_reference do
      values.each { |value| assert_same_encoding(value) }
      # Raised as the stock encoder raises them (8.0 has no nesting limit, the
      # Coder encoder stops a cycle at its nesting limit).
      [deep, (cyclic unless ENV["JETSON_MEMCHECK"])].compact.each do |value|
        expected = outcome(stock, value, nil)
        next if expected[0] == :ok

        assert_raises(expected[1]) { Jetson::RailsEncoder.new.encode(value) }
      end
    end
  end

  # Counts its as_json calls, and returns something that needs the pass
  # after as_json: another object of its own, and under the last one `leaf`.
  class Counted
    def initialize(calls, depth, leaf = "leaf")
      @calls = calls
      @inner = depth.zero? ? leaf : Counted.new(calls, depth - 1, leaf)
    end

    def as_json(_options = nil)
      @calls << object_id
      { "inner" => @inner }
    end

    # Error messages show it: the same on both sides.
    def inspect = "#<Counted>"
  end

  # ActiveSupport copies a Hash whose keys it converts ({1 => a, "1" => b};
  # in the as_json pass {"a" => a, b: b} too). Each value is as_json'd once,
  # in order; a value a later key replaces is as_json'd in the as_json pass
  # and dropped: what its as_json returned is never walked, so nothing under
  # it raises or is called (CI's graph of seed 67455). Jetson writes the
  # pairs before the first such key once, and walks again only when a later
  # key replaces one of them ("a" and :a): the outcome is the same, and the
  # as_json calls of the pairs before it happen twice (not counted here). A
  # failing as_json ends both sides at the same error, after different counts
  # of calls (Jetson walks a result as soon as as_json returns it): the
  # shapes that raise are compared by their outcome only.
  def test_a_hash_with_converted_keys_calls_each_as_json_once
    boom = RailsGraph::Raises.new
    shapes = [
      [false, ->(log) { { 1 => Counted.new(log, 2, boom), "1" => "kept" } }],
      [true, ->(log) { { 1 => Counted.new(log, 2), "1" => "kept", nested: { 2 => Counted.new(log, 1), "2" => [Counted.new(log, 0)] } } }],
      [true, ->(log) { { "a" => Counted.new(log, 1), b: [Counted.new(log, 0)], 2 => { "c" => Counted.new(log, 0), 3 => 1 } } }],
      [true, ->(log) { { "a" => [Counted.new(log, 1)], b: 1, 1 => Counted.new(log, 2), "1" => 2 } }],
      [false, ->(log) { { "a" => Counted.new(log, 1), a: [Counted.new(log, 0, boom)] } }],
      # The replaced pair comes first, before the key of another type.
      [false, ->(log) { { a: Counted.new(log, 1, boom), "a" => 1, 2 => [Counted.new(log, 0)] } }]
    ]
    each_reference do |encoder|
      [nil, { unused: true }, { except: ["x"] }].each do |options|
        shapes.each_with_index do |(counted, shape), i|
          calls = { stock: [], jetson: [] }
          outcomes = calls.to_h { |side, log| [side, outcome(side == :stock ? stock : Jetson::RailsEncoder, shape.call(log), options)] }
          where = "#{encoder.name}, options #{options.inspect}, shape #{i}"
          assert_equal outcomes[:stock], outcomes[:jetson], where
          assert_equal calls[:stock].size, calls[:jetson].size, "as_json calls: #{where}" if counted
        end
      end
    end
  end

  class FirstError < StandardError; end
  class SecondError < StandardError; end

  # Raises its error from as_json.
  class Failing
    def initialize(error) = @error = error
    def as_json(_options = nil) = raise(@error, "from as_json")
    def inspect = "#<Failing>"
  end

  # as_json returns what it holds, for the pass after to walk.
  class Holder
    def initialize(value) = @value = value
    def as_json(_options = nil) = { "held" => @value }
    def inspect = "#<Holder>"
  end

  # An ActiveModel whose serializable_hash holds a Holder of a failing value
  # and then a failing value: its as_json fails with the second one, before
  # anything walks the Holder's result.
  class FailingModel
    include ActiveModel::Serializers::JSON

    def attributes = { "held" => nil, "failing" => nil }
    def held = Holder.new(Failing.new(FirstError))
    def failing = Failing.new(SecondError)
    def inspect = "#<FailingModel>"
  end

  # With options, ActiveSupport runs every as_json(options) first and walks
  # their results after: an as_json in a result fails after every as_json of
  # the first pass, even one later in the document; without options (and
  # under the Coder's walk) the walk meets them in document order.
  def test_as_json_errors_come_in_the_order_of_the_passes
    bad = String.new("\xFF", encoding: "UTF-8")
    values = [
      { a: Holder.new(Failing.new(FirstError)), b: Failing.new(SecondError) },
      [Holder.new([Failing.new(FirstError)]), Holder.new(Failing.new(SecondError)), Failing.new(SecondError)],
      [Holder.new(Failing.new(FirstError)), Holder.new(Holder.new(Failing.new(SecondError)))],
      [bad, Holder.new(Failing.new(FirstError)), { "k" => Failing.new(SecondError) }],
      [Holder.new(bad), Holder.new(Failing.new(FirstError))],
      { Holder.new(1) => Holder.new(Failing.new(FirstError)), nested: [Holder.new(Failing.new(SecondError)), Failing.new(FirstError)] },
      # A model met in a result: its own pass fails, and what that pass kept
      # from its results is forgotten.
      { x: Holder.new(FailingModel.new) },
      [Holder.new([String.new("\xFF", encoding: "UTF-8"), FailingModel.new])]
    ]
    each_reference do
      [nil, { unused: true }, { except: ["x"] }].each do |options|
        values.each { |value| assert_same_encoding(value, options) }
      end
    end
  end

  def test_overrides_of_natively_encoded_classes_are_honoured
    klass = Class.new(Time)
    assert_same_encoding([klass.at(0).utc])
    klass.define_method(:as_json) { |*| "redefined" }
    assert_equal '["redefined"]', Jetson::RailsEncoder.new.encode([klass.at(0).utc])
    prepended = Class.new(Date) { prepend(Module.new { def as_json(*) = "prepended" }) }
    assert_equal '["prepended"]', Jetson::RailsEncoder.new.encode([prepended.new(2020, 1, 1)])
    singleton = Time.utc(2001)
    def singleton.as_json(*) = "singleton"
    assert_equal '["singleton","2001-01-01T00:00:00.000Z"]', Jetson::RailsEncoder.new.encode([singleton, Time.utc(2001)])
  end
end
