# frozen_string_literal: true

require "test_helper"
require "jetson/rails"
require "support/rails_graph"
require "support/differential"

# Differential tests of Rails mode: every graph is encoded by
# ActiveSupport::JSON.encode with ActiveSupport's own encoder and with
# Jetson::RailsEncoder, under the same settings, and the outcomes (bytes, or
# exception class and message) must be the same.
#
#   JETSON_RAILS_DOCS=N  number of random graphs (default 3_000)
#   JETSON_RAILS_SEED=S  base seed (default: minitest's --seed)
#
# Float digits are the one documented difference, as in json mode: the json
# gem (and so ActiveSupport) prints Grisu2 digits, Jetson the shortest
# round-trip ones; such outputs count only if they parse to the same Floats
# (Differential.float_only_difference).
class RailsDifferentialTest < Minitest::Test
  DOCS = Integer(ENV.fetch("JETSON_RAILS_DOCS", "3000"))
  STOCK = ActiveSupport::JSON::Encoding::JSONGemEncoder
  SETTINGS = %i[escape_html_entities_in_json use_standard_json_time_format time_precision].freeze

  def setup
    @saved = SETTINGS.to_h { |name| [name, ActiveSupport::JSON::Encoding.public_send(name)] }
    @saved_zone = Time.zone
  end

  def teardown
    @saved.each { |name, value| ActiveSupport::JSON::Encoding.public_send(:"#{name}=", value) }
    ActiveSupport.json_encoder = STOCK
    Time.zone = @saved_zone
  end

  def seed
    Integer(ENV["JETSON_RAILS_SEED"] || Minitest.seed)
  end

  # [:ok, bytes, warning count] or [:error, class, message, warning count].
  def outcome(encoder, value, options)
    ActiveSupport.json_encoder = encoder
    result, error, warnings = Differential.capturing_warnings { ActiveSupport::JSON.encode(value, options) }
    return [:ok, result, warnings.size] unless error
    raise error unless error.is_a?(StandardError) || error.is_a?(SystemStackError)

    [:error, error.class, error.message.gsub(/0x\h+/, "0x…"), warnings.size]
  ensure
    ActiveSupport.json_encoder = STOCK
  end

  # Returns nil when the outcomes agree, else a description.
  def difference(value, options)
    stock = outcome(STOCK, value, options)
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
      return nil if a == b || Differential.float_only_difference(a, b)
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
  end

  def test_random_graphs
    failures = []
    DOCS.times do |i|
      rng = Random.new(seed + i)
      apply_random_settings(rng)
      value = RailsGraph.build(rng, raising: rng.rand(20).zero?)
      options = RailsGraph.options(rng)
      problem = difference(value, options)
      failures << "graph #{i} (seed #{seed + i}):\n#{problem}" if problem
      break if failures.size >= 5
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
    [true, false].each do |html|
      [true, false].each do |standard|
        [0, 3, 9, 12].each do |precision|
          ActiveSupport::JSON::Encoding.escape_html_entities_in_json = html
          ActiveSupport::JSON::Encoding.use_standard_json_time_format = standard
          ActiveSupport::JSON::Encoding.time_precision = precision
          values.each { |v| assert_same_encoding([v]) }
          assert_same_encoding(values)
          assert_same_encoding(values.each_with_index.to_h { |v, i| ["k#{i}", v] }, { except: ["k1"] })
        end
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
    values.each { |value| assert_same_encoding(value) }
    assert_raises(JSON::NestingError) { Jetson::RailsEncoder.new.encode(deep) }
    assert_raises(SystemStackError) { Jetson::RailsEncoder.new.encode(cyclic) } unless ENV["JETSON_MEMCHECK"]
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
