# frozen_string_literal: true

require "test_helper"
require "jetson/rails"
require "support/differential"
require "support/rails_oracle"

# Hash keys that are neither Strings nor Symbols: Rails main (and 8.1.4's
# JSONGemCoderEncoder) writes such a key as the key's own to_s, not as the
# to_s of its as_json (a Time key is "2024-01-02 03:04:05 UTC", not its
# ISO 8601 as_json). Jetson follows what the loaded ActiveSupport does: every
# key here goes through ActiveSupport's stock encoders and through
# Jetson::RailsEncoder writing that encoder's bytes, at the top level, nested,
# inside as_json results, with and without options, and the bytes (or the
# error) are compared.
class HashKeysTest < Minitest::Test
  # A key whose as_json and to_s differ: which one the encoder asks shows.
  class Both
    def as_json(*) = "as_json of the key"
    def to_s = "to_s of the key"
  end

  # A Struct (ActiveSupport's Struct#as_json is a Hash) with its own to_s.
  Pair = Struct.new(:a, :b) do
    def to_s = "pair #{a}/#{b}"
  end

  # An object whose as_json is a Hash with such keys.
  class Holder
    def initialize(hash) = @hash = hash
    def as_json(*) = @hash
  end

  class Escaped
    def to_s = "<&> \u2028"
  end

  def keys
    zone = ActiveSupport::TimeZone["Asia/Kathmandu"]
    [Time.utc(2024, 1, 2, 3, 4, 5, 678_901), Time.new(2024, 1, 2, 3, 4, 5, "+05:30"), zone.local(2024, 6, 7, 8, 9, 10),
     Date.new(2024, 2, 29), DateTime.new(2024, 1, 2, 3, 4, 5, "+01:00"), BigDecimal("1.50"), BigDecimal("-0.1e-30"),
     1.5, 1.0e20, -0.0, Float::NAN, Float::INFINITY, 12, 2**70, -3, Rational(1, 3), Complex(1, 2), nil, true, false,
     (1..3), /ab+c/i, Both.new, Pair.new(1, 2), Escaped.new, [1, "a"], { "h" => 1 }, Object, Comparable,
     ActiveSupport::Duration.build(90), URI("https://example.org/a?b=1")]
  end

  def docs
    keys.flat_map do |key|
      hash = { key => 1, "s" => 2 }
      [hash, { key => { key => [key] } }, [hash, { "k" => hash }], Holder.new(hash), [Holder.new({ "x" => hash })],
       { "a" => 1, key => nil, :sym => key }]
    end
  end

  def outcome(&)
    value, error, = Differential.capturing_warnings(&)
    error ? [:raises, error.class.name] : [:ok, value]
  end

  def teardown
    Jetson::Rails.reference_encoder = nil
  end

  def test_non_string_keys_give_the_stock_encoders_bytes
    compared = 0
    RailsOracle.reference_encoders.each do |encoder|
      Jetson::Rails.reference_encoder = encoder
      stock = RailsOracle.stock(encoder)
      [nil, { escape: false }, { escape_html_entities: false }, { "unused" => true }, { only: %w[s a] }].each do |options|
        docs.each do |doc|
          expected = outcome { stock.new(options&.dup).encode(doc) }
          actual = outcome { Jetson::RailsEncoder.new(options&.dup).encode(doc) }
          assert_equal expected, actual, "#{encoder.name}, #{options.inspect}: #{doc.inspect[0, 200]}"
          compared += 1
        end
      end
    end
    assert_operator compared, :>=, docs.size * 5
  end

  # The same through ActiveSupport::JSON.encode and to_json with Jetson
  # installed (the encoder instances ActiveSupport keeps) against the stock
  # encoder installed.
  def test_non_string_keys_through_to_json
    calls = docs.map do |doc|
      -> { [ActiveSupport::JSON.encode(doc), ActiveSupport::JSON.encode(doc, escape: false), doc.to_json] }
    end
    ActiveSupport.json_encoder = RailsOracle.stock
    expected = calls.map { |call| outcome(&call) }
    begin
      ActiveSupport.json_encoder = Jetson::RailsEncoder
      actual = calls.map { |call| outcome(&call) }
    ensure
      ActiveSupport.json_encoder = RailsOracle.stock
    end
    expected.zip(actual).each_with_index do |(e, a), i|
      assert_equal e, a, docs[i].inspect[0, 200]
    end
  end
end
