# frozen_string_literal: true

require "test_helper"
require "support/json_oracle"

# Times are written natively when their class prints with Ruby's own
# Time#to_s; everything here is compared with the bytes the json gem makes
# (it calls that same to_s through its generic to_json).
class TimeTest < Minitest::Test
  include JSONOracle

  ZONES = ["UTC", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Chatham"].freeze

  def random_times(rng, count)
    Array.new(count) do
      seconds = case rng.rand(4)
                when 0 then rng.rand(-62_135_596_800..253_402_300_799) # years 1 to 9999
                when 1 then rng.rand(-2**40..2**40)                     # far outside, Ruby prints those
                when 2 then rng.rand(-86_400 * 3..86_400 * 3)           # around the epoch
                else rng.rand(946_684_800..1_893_456_000)               # 2000 to 2030
                end
      time = Time.at(seconds, rng.rand(0..999_999_999), :nsec)
      case rng.rand(4)
      when 0 then time.utc
      when 1 then time.localtime
      when 2 then time.localtime(rng.rand(-86_399..86_399)) # offsets with seconds too
      else time.localtime(rng.rand(-24 * 60 + 1..24 * 60 - 1) * 60)
      end
    end
  end

  def with_zone(zone)
    saved = ENV.fetch("TZ", nil)
    ENV["TZ"] = zone
    yield
  ensure
    ENV["TZ"] = saved
  end

  def test_random_times_in_several_local_zones
    rng = Random.new(Minitest.seed)
    ZONES.each do |zone|
      with_zone(zone) do
        times = random_times(rng, 2_000)
        assert_generate_same(times)
        assert_generate_same({ "times" => times }, script_safe: true, ascii_only: true)
      end
    end
  end

  def test_edges
    times = [Time.utc(1), Time.utc(9999, 12, 31, 23, 59, 59), Time.utc(10_000), Time.utc(0), Time.utc(-1),
             Time.at(-1.5).utc, Time.at(Rational(-1, 3)).utc, Time.utc(2000, 2, 29), Time.utc(1900, 3, 1),
             Time.new(2000, 1, 1, 0, 0, 0, "-00:00:30"), Time.new(2000, 1, 1, 0, 0, 0, "+23:59"),
             Time.new(2000, 1, 1, 0, 0, 0, "-23:59"), Time.new(2000, 1, 1, 0, 0, 0, "+00:00"), Time.at(2**62).utc,
             Time.at(-2**62).utc, Time.at(10**30).utc]
    assert_generate_same(times)
  end

  def test_subclasses_and_redefinitions
    plain_sub = Class.new(Time)
    own_to_s = Class.new(Time) { def to_s = "own" }
    own_to_i = Class.new(Time) { def to_i = 0 }
    own_utc = Class.new(Time) { def utc? = true }
    prepended = Class.new(Time) { prepend(Module.new { def to_s = "prepended #{super}" }) }
    singleton = Time.utc(2001).tap { |t| def t.to_s = "singleton" }
    own_to_json = Class.new(Time) { def to_json(*) = '"to_json"' }
    doc = [plain_sub.at(0).utc, own_to_s.at(0), own_to_i.at(5).utc, own_utc.at(0).localtime("+01:00"),
           prepended.at(0).utc, singleton, Time.utc(2002), own_to_json.at(0)]
    assert_generate_same(doc)
    assert_generate_same(doc.to_h { |t| [t.object_id.to_s, t] })
  end
end
