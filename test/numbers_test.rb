# frozen_string_literal: true

require "test_helper"
require "json"
require_relative "../ext/jetson/pow10_table"

# Floats must come out as the json gem the process has writes them, byte for
# byte: Grisu2's digits (json 2.11 and later; sometimes a digit longer than
# the shortest, or off by one in the last digit) in its release's layout, or
# Float#to_s's before 2.11. Every Float here is compared with JSON.generate
# of the same Float, and must read back as itself.
# test/float_rules_test.rb runs the releases whose rules differ from this
# process's json in child processes.
class NumbersTest < Minitest::Test
  SEED = 20_240_601
  BATCH = 1_000

  # -- doubles ---------------------------------------------------------------

  def test_random_bit_patterns
    rng = Random.new(SEED)
    sample = []
    while sample.size < 100_000
      x = [rng.rand(1 << 64)].pack("Q<").unpack1("E")
      sample << x if x.finite?
    end
    assert_floats(sample)
  end

  def test_short_decimals
    rng = Random.new(SEED + 1)
    sample = Array.new(50_000) do
      x = Float("#{rng.rand(10**rng.rand(1..17))}e-#{rng.rand(0..25)}")
      rng.rand(2).zero? ? x : -x
    end
    assert_floats(sample)
  end

  # Random digits at the exponents where json switches notation.
  def test_around_layout_thresholds
    rng = Random.new(SEED + 2)
    exponents = [-12, -11, -10, -9, -8, -7, -6, -5, 13, 14, 15, 16, 17]
    sample = Array.new(20_000) do
      Float("#{rng.rand(1..9)}.#{rng.rand(10**rng.rand(0..16))}e#{exponents.sample(random: rng)}")
    end
    %w[1e15 1e16 1e-5 1e-6 1e-7 1e-9 1e-10].each do |s|
      up = down = Float(s)
      200.times { sample << (up = up.next_float) << (down = down.prev_float) }
    end
    assert_floats(sample)
  end

  # Decimals of up to 8 places below 2^51 / 10^8 take a short path (one
  # multiplication, one division; numbers.c, eight_place_decimal): its edges
  # are the place count (8 against 9), the size bound, the neighbours of each
  # such decimal (which must not be taken for it) and halfway points.
  def test_eight_place_decimals_and_their_neighbours
    rng = Random.new(SEED + 5)
    limit = 2**51 / 10**8 # 22_517_998
    sample = []
    8_000.times do
      places = rng.rand(1..10)
      magnitude = [limit * 10**places, 10**rng.rand(1..16)].min
      x = Float("#{rng.rand(magnitude)}e-#{places}")
      sample.push(x, x.next_float, x.prev_float, -x)
    end
    [22_517_998.13685247, 22_517_998.13685248, 22_517_998.1368525, 22_517_997.99999999, 22_517_998.5,
     1e-8, 2e-8, 9.9999999e-9, 1.00000001, 0.99999999, 0.00000005, 0.000000015, 0.000000025,
     1.000000005, 12_345_678.12345678, 12_345_678.123456785, 5_000_000.00000001, 0.1 + 0.2].each do |x|
      sample.push(x, x.next_float, x.prev_float, -x)
    end
    3_000.times { sample << rng.rand * limit << rng.rand }
    # Above the bound an ulp spans several 8-place decimals, and the shortest
    # that reads back may have fewer places than the nearest one.
    3_000.times { sample << Float("#{rng.rand(limit..limit * 1000)}.#{rng.rand(10**rng.rand(6..8))}") }
    assert_floats(sample)
    # rfc8785 gets its digits from the same place (jt_shortest_decimal).
    sample.each_slice(BATCH) do |batch|
      Jetson.generate(batch, rfc8785: true)[1..-2].split(",").zip(batch) do |out, x|
        assert_equal x, Float(out), "rfc8785 digits of #{x.inspect}"
        expected = x.zero? ? "0" : x.to_s # RFC 8785 writes -0 as 0
        assert_equal digits_and_exponent(expected), digits_and_exponent(out), "rfc8785 digits of #{x.inspect}"
      end
    end
  end

  # Powers of two are where the rounding interval is asymmetric; subnormals
  # have few significant bits; integers take a separate fast path.
  def test_edges_of_the_double_range
    sample = []
    (-1074..1023).each do |e|
      x = 2.0**e
      sample.push(x, x.next_float, x.prev_float)
    end
    (-323..308).each { |e| sample.push(Float("1e#{e}"), Float("5e#{e}")) }
    (1..3_000).each { |t| sample << [t].pack("Q<").unpack1("E") }
    ((1 << 52) - 1_000...(1 << 52)).each { |t| sample << [t].pack("Q<").unpack1("E") }
    rng = Random.new(SEED + 3)
    3_000.times { sample << [rng.rand(1 << 52)].pack("Q<").unpack1("E") }
    [2**53, 2**52, 10**15, 10**16].each { |b| (-1_000..1_000).each { |d| sample << (b + d).to_f } }
    3_000.times { sample << rng.rand(1 << 62).to_f << -rng.rand(1 << 20).to_f }
    # exact ties between two shortest candidates (q = -2: steps of 0.25)
    3_000.times { sample << ((1 << 52) + rng.rand(1 << 52)) / 4.0 }
    sample.push(Float::MAX, -Float::MAX, Float::MIN, Float::EPSILON)
    assert_floats(sample.select(&:finite?))
  end

  def test_hand_picked_layouts
    [
      0.0, -0.0, 1.0, -1.5, 123.0, 0.1, 123.456, 0.30000000000000004, 100_000_000_000_000.0,
      999_999_999_999_999.9, 1e15, 1e16, 1.1111111111111112e+16, 123_456_789_012_345.6,
      4_503_599_627_370_497.0, 9_007_199_254_740_992.0, 1e-5, 1e-6, 1e-7, 1.2e-7, 1.2345678901234566e-07,
      1.5e-9, 1e-9, 9.999999999999999e-10, 1e-10, 2.2471348024634546e-10, 0.000000022471348024634545,
      1e21, 1e300, 1e-300, 5e-324, -5e-324, 1.5e-323, Float::MAX, Float::MIN, 2.0**64,
      1e7, 1e8, -1e7, -1e8, 12_345_678.0, 1234.5e-6, 1234.5e-9, 0.001234, 1746861937.7842371
    ].each do |x|
      assert_equal JSON.generate([x]), Jetson.generate([x]), "for #{x.inspect}"
      assert_equal JSON.generate(x), Jetson.generate(x), "for #{x.inspect} alone"
    end
  end

  # Where Grisu2 is not shortest or not closest: the json gem's digits, not
  # Float#to_s's (json 2.11 and later; before, the two are the same).
  def test_where_grisu_is_not_shortest
    floats = [1e23, 8.41e+21, 5.1706972221451376e+16, 1_234_567_890_123_456.8, 1_125_899_906_842_624.25,
              -452.08798082113333, -61.14917000000003]
    floats.each do |x|
      assert_equal JSON.generate([x]), Jetson.generate([x]), "for #{x.inspect}"
    end
    return unless Jetson::JSON_FLOAT_RULES != "2.10"

    # These are the cases where the two differ, or the test above is vacuous.
    assert(floats.all? { |x| JSON.generate(x).sub(/\.0\z/, "") != x.to_s.sub(/\.0(e|\z)/, "\\1") })
  end

  # The table and the rounding argument behind it hold for every double, not
  # just the sampled ones.
  def test_pow10_table_is_precise_enough
    assert Jetson::Pow10Table.verify
  end

  # -- integers --------------------------------------------------------------

  def test_integers
    ints = [0, 1, -1, 9, -9, 2**31 - 1, -2**31, 2**32, -2**32, 2**53 + 1, -2**53 - 1,
            2**62 - 1, -2**62, 2**62 - 2, -2**62 + 1]
    (1..18).each { |e| ints.push(10**e - 1, 10**e, 10**e + 1, -(10**e - 1), -10**e, -(10**e + 1)) }
    rng = Random.new(SEED + 4)
    10_000.times do
      n = rng.rand(1 << rng.rand(1..62))
      ints << (rng.rand(2).zero? ? n : -n)
    end
    ints.select! { |i| i >= -2**62 && i < 2**62 }
    ints.each_slice(BATCH) do |batch|
      assert_equal "[#{batch.map(&:to_s).join(",")}]", Jetson.generate(batch)
    end
  end

  # Integers below 100 take one unsigned compare in the writer; both sides
  # of it and of the one-digit test, negatives on the far side, wherever the
  # walk writes an Integer itself: alone, in an Array's run of Integers, in
  # tuples and rows of tuples, as a pair's value (the first pair and the
  # others; past 2 KiB from the short-key cache), after a String. Compared
  # with the json gem's bytes.
  def test_small_integers_in_every_place
    ints = (-1_000..1_000).to_a
    docs = [ints, ints.each_slice(3).to_a, ints.map { |i| ["x", i] },
            ints.map { |i| { "v" => i, "w" => i, "t" => [i, -i] } }, ints.map { |i| { v: i, w: i } }]
    docs.each { |doc| assert_equal JSON.generate(doc), Jetson.generate(doc) }
    ints.each do |i|
      [i, [i], [[i, i]], { "v" => i }, { "a" => 1, "v" => i }].each do |doc|
        assert_equal JSON.generate(doc), Jetson.generate(doc)
      end
    end
  end

  def test_integers_just_outside_fixnum_range
    [2**62, -2**62 - 1, 2**63 - 1, -2**63, 2**63, -2**63 - 1, 2**64, -2**64, 10**30].each do |i|
      assert_equal "[#{i}]", Jetson.generate([i])
    end
  end

  private

  def assert_floats(floats)
    failures = []
    compared = 0
    floats.each_slice(BATCH) do |batch|
      ours = array_items(Jetson.generate(batch))
      theirs = array_items(JSON.generate(batch))
      assert_equal batch.size, ours.size, "Jetson.generate item count"
      batch.each_with_index do |x, i|
        out = ours[i]
        back = Float(out, exception: false)
        if back.nil? || bits(back) != bits(x)
          failures << "#{x.inspect} (#{hex(x)}) written as #{out}, which reads back as #{back.inspect}"
          next
        end
        compared += 1
        failures << "#{x.inspect} (#{hex(x)}) written as #{out}, JSON.generate gives #{theirs[i]}" if theirs[i] != out
      end
    end
    assert_empty failures.first(20), "#{failures.size} of #{floats.size} floats wrong"
    assert_equal floats.size, compared
  end

  def array_items(json)
    assert json.start_with?("[") && json.end_with?("]"), "not an array: #{json[0, 40]}"
    json[1..-2].split(",")
  end

  # [negative?, significant digits without leading or trailing zeros, exponent
  # of the first digit]; "1.5e+3", "1500.0" and "1.5e3" all give [false, "15", 3].
  def digits_and_exponent(str)
    negative = str.start_with?("-")
    str = str.delete_prefix("-")
    mantissa, exponent = str.split(/e/i, 2)
    int_part, frac_part = mantissa.split(".", 2)
    digits = int_part + frac_part.to_s
    leading = digits[/\A0*/].size
    return [negative, "0", 0] if leading == digits.size

    [negative, digits[leading..].sub(/0+\z/, ""), exponent.to_i + int_part.size - 1 - leading]
  end

  def bits(float)
    [float].pack("G")
  end

  def hex(float)
    bits(float).unpack1("H*")
  end
end
