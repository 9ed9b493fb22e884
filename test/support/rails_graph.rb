# frozen_string_literal: true

require "bigdecimal"
require "date"
require "uri"
require "pathname"

# RailsGraph builds random object graphs of the values ActiveSupport's JSON
# encoder handles, for comparing Jetson::RailsEncoder with the stock encoder.
# The same graph object is encoded by both (every class here is free of side
# effects), and a seed reproduces a graph exactly.
module RailsGraph
  class Boom < StandardError; end

  # as_json returning a structure with more values to encode.
  class Card
    def initialize(name, items)
      @name = name
      @items = items
    end

    def as_json(options = nil)
      { "name" => @name, items: @items, "at" => Time.utc(2020, 1, 2, 3, 4, 5) }
    end
  end

  # No as_json of its own: ActiveSupport encodes its instance variables.
  class Plain
    def initialize(a, b)
      @a = a
      @b = b
    end
  end

  # Encoded through to_hash (Object#as_json).
  class Hashy
    def initialize(h)
      @h = h
    end

    def to_hash
      @h
    end
  end

  # as_json returning a scalar, and one that raises.
  class Money
    def initialize(cents)
      @cents = cents
    end

    def as_json(*)
      format("%.2f", @cents / 100.0)
    end
  end

  class Raises
    def as_json(*)
      raise Boom, "as_json failed"
    end
  end

  # Overrides of the natively handled kinds: must be honoured.
  class OwnTime < Time
    def as_json(*)
      "own time"
    end
  end

  class PlainTime < Time; end

  class OwnDate < Date
    def as_json(*)
      "own date"
    end
  end

  class HashSub < Hash; end
  class ArraySub < Array; end
  class StrSub < String; end

  Point = Struct.new(:x, :y)

  ZONES = ["UTC", "Tokyo", "Eastern Time (US & Canada)", "Kathmandu", "Chatham Is.", "London"].freeze

  STRINGS = ["", "plain", "<b>&amp;</b>", "caf\u00e9", "\u2028\u2029", "quote\" back\\slash", "tab\tnl\n\u0001",
             "emoji \u{1F600}", "slash/", "mixed <\u2028> &", "\u00e9" * 40, "x" * 100].freeze

  module_function

  def string(rng)
    case rng.rand(20)
    when 0 then String.new("\xFF\xFEbad", encoding: Encoding::UTF_8) # invalid: both raise
    when 1 then "binary ok".b
    when 2 then "latin \xE9".dup.force_encoding(Encoding::ISO_8859_1)
    when 3 then StrSub.new("sub <&>")
    when 4..8 then Array.new(rng.rand(1..20)) { rng.rand(32..0x2FF).chr(Encoding::UTF_8) }.join
    else STRINGS.sample(random: rng)
    end
  end

  def float(rng)
    case rng.rand(12)
    when 0 then [Float::NAN, Float::INFINITY, -Float::INFINITY, -0.0, 0.0].sample(random: rng)
    when 1 then rng.rand * 10**rng.rand(-300..300)
    else (rng.rand * 10**rng.rand(-4..9)).round(rng.rand(0..6))
    end
  end

  def time(rng)
    seconds = rng.rand(-2_000_000_000..4_000_000_000)
    nanos = rng.rand(0..999_999_999)
    t = Time.at(seconds, nanos, :nsec)
    case rng.rand(6)
    when 0 then t.utc
    when 1 then t.localtime(rng.rand(-23..23) * 3600 + rng.rand(0..3) * 15 * 60)
    when 2 then ActiveSupport::TimeZone[ZONES.sample(random: rng)].at(t)
    when 3 then PlainTime.at(t).utc
    when 4 then Time.at(seconds, Rational(rng.rand(10**12), 10**12)).utc
    else t
    end
  end

  def date(rng)
    case rng.rand(5)
    when 0 then Date.new(rng.rand(1..1581), rng.rand(1..12), rng.rand(1..28)) # Julian calendar, before the reform's gap of 1582
    when 1 then Date.new(rng.rand(1583..2400), rng.rand(1..12), rng.rand(1..28), Date::GREGORIAN)
    when 2 then DateTime.new(rng.rand(1900..2100), rng.rand(1..12), rng.rand(1..28), rng.rand(0..23), rng.rand(0..59),
                             rng.rand(0..59), "+0#{rng.rand(0..9)}:00")
    else Date.new(rng.rand(1900..2100), rng.rand(1..12), rng.rand(1..28))
    end
  end

  def scalar(rng)
    case rng.rand(30)
    when 0 then nil
    when 1 then true
    when 2 then false
    when 3, 4 then rng.rand(-10**6..10**6)
    when 5 then rng.rand(-10**30..10**30)
    when 6, 7 then float(rng)
    when 8..11 then string(rng)
    when 12 then :"sym_#{rng.rand(100)}"
    when 13, 14 then time(rng)
    when 15 then date(rng)
    when 16 then [BigDecimal("1234.5600"), BigDecimal("0.00001"), BigDecimal("-1e20"), BigDecimal("NaN"),
                  BigDecimal("Infinity")].sample(random: rng)
    when 17 then Rational(rng.rand(1..9), rng.rand(1..9))
    when 18 then [1..3, "a"..."c", /ab+c/i, URI("https://example.com/a?b=<c>"), Pathname("/tmp/x"),
                  ArgumentError.new("bad <arg>"), String, Comparable].sample(random: rng)
    when 19 then Money.new(rng.rand(10_000))
    when 20 then OwnTime.at(0)
    when 21 then OwnDate.new(2020, 1, 1)
    when 22 then Point.new(rng.rand(10), string(rng))
    when 23 then Jetson::Fragment.new('{"raw":1}')
    when 24 then Complex(1, 2)
    else "s#{rng.rand(1000)}"
    end
  end

  KEYS = ["id", :id, "name", :name, 1, 2.5, nil, true, :"1", "1", "<key>", "caf\u00e9"].freeze

  def key(rng)
    case rng.rand(10)
    when 0 then rng.rand(5)
    when 1 then Date.new(2020, 1, rng.rand(1..3))
    when 2 then StrSub.new("subkey")
    else KEYS.sample(random: rng)
    end
  end

  # A random graph; raising: include objects whose as_json raises.
  def build(rng, depth = 0, raising: false)
    return scalar(rng) if depth > 5 || rng.rand(10) < 3 + depth

    case rng.rand(14)
    when 0..3 then Array.new(rng.rand(0..6)) { build(rng, depth + 1, raising: raising) }
    when 4..7 then Array.new(rng.rand(0..6)) { [key(rng), build(rng, depth + 1, raising: raising)] }.to_h
    when 8 then Card.new(string(rng), Array.new(rng.rand(0..3)) { build(rng, depth + 1, raising: raising) })
    when 9 then Plain.new(build(rng, depth + 1, raising: raising), scalar(rng))
    when 10 then Hashy.new({ "k" => build(rng, depth + 1, raising: raising), :s => scalar(rng) })
    when 11 then HashSub[{ "a" => build(rng, depth + 1, raising: raising), b: scalar(rng) }]
    when 12 then ArraySub.new(Array.new(rng.rand(0..3)) { build(rng, depth + 1, raising: raising) })
    else raising ? Raises.new : scalar(rng)
    end
  end

  # Top-level options as `to_json(options)` / `render json:` pass them.
  def options(rng)
    case rng.rand(8)
    when 0 then { only: %w[id name a] }
    when 1 then { except: [:id, "name"] }
    when 2 then { "unused" => true }
    else nil
    end
  end
end
