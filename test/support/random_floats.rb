# frozen_string_literal: true

require "fileutils"
require "rbconfig"

# Random finite doubles for the Float differential (script/float_differential,
# test/float_rules_test.rb, test/rails/float_rules_test.rb): the doubles
# whose bytes the json gem's Float rules decide, drawn from a seeded Random
# so that a seed gives the same doubles in every process and json version.
#
# Categories (share of the draws), each double negated half of the time:
#   bits          40%  uniform 64-bit patterns, NaN and the infinities redrawn
#   decimal       32%  decimals of 1-17 significant digits at decimal
#                      exponents -12..12 (coordinates, prices): "D.DDDe±E"
#                      parsed, the nearest double
#   decimal_wide   8%  the same at every decimal exponent -325..308 (those
#                      that overflow redrawn; the smallest round to
#                      subnormals or zero)
#   subnormal      3%  uniform subnormal bit patterns, and 0.0
#   power_of_two   3%  2**e for every e in -1074..1023, or its next or
#                      previous double
#   power_of_ten   3%  10**e (the nearest double) for every e in -323..308, or
#                      a neighbour 1-3 doubles away
#   tie            4%  exact halfway points: n + 0.5 (where the grid is 0.5
#                      or 1: n in 2**51..2**53), n + 0.25/0.75 (halfway on the
#                      q=-1 grid), n + 0.125/0.375/0.625/0.875 (q=-2),
#                      integers in 2**52..2**54, and 16-17 digit decimals
#                      ending in 5 (halfway between the 15-16 digit ones)
#   integer        3%  integral doubles near 1e15, 1e16, 2**53 (within
#                      +-2**12), and of 1-17 digits
#   threshold      4%  around the layout thresholds (where a json release
#                      switches between 0.0001 and 1e-05, or 1e15 and
#                      1000000000000000.0): 10**e for e in -11..-4 and 7..17,
#                      its neighbours, short decimals just below and above
#                      it, and random doubles within a factor of ten of it
module RandomFloats
  CATEGORIES = [
    [:bits, 40], [:decimal, 32], [:decimal_wide, 8], [:subnormal, 3], [:power_of_two, 3], [:power_of_ten, 3],
    [:tie, 4], [:integer, 3], [:threshold, 4]
  ].freeze
  # Category of each of the 100 slots a draw picks from.
  SLOTS = CATEGORIES.flat_map { |name, weight| [name] * weight }.freeze
  raise "the weights must sum to 100" unless SLOTS.size == 100

  THRESHOLD_EXPONENTS = ((-11..-4).to_a + (7..17).to_a).freeze
  NEAR_INTEGERS = [10**15, 10**16, 2**53].freeze

  module_function

  # The IEEE 754 bits of a Float, as 16 hex digits.
  def hex(x)
    [x].pack("G").unpack1("H*")
  end

  # The Float whose bits are the 16 hex digits `hex`.
  def from_hex(hex)
    [hex].pack("H*").unpack1("G")
  end

  # Calls the block with `count` [category, Float] pairs drawn from `rng`.
  def each(rng, count)
    return enum_for(:each, rng, count) unless block_given?

    count.times { yield draw(rng) }
  end

  # One [category, Float] pair.
  def draw(rng)
    category = SLOTS[rng.rand(100)]
    x = send(category, rng)
    [category, rng.rand(2).zero? ? x : -x]
  end

  def bits(rng)
    loop do
      x = [rng.rand(1 << 64)].pack("Q<").unpack1("E")
      return x if x.finite?
    end
  end

  # A decimal of 1-17 significant digits with the scientific exponent `exponent`.
  def short_decimal(rng, exponent, digits = rng.rand(1..17))
    mantissa = rng.rand(10**(digits - 1)...10**digits)
    Float("#{mantissa}e#{exponent - digits + 1}")
  end

  def decimal(rng)
    short_decimal(rng, rng.rand(-12..12))
  end

  def decimal_wide(rng)
    # Float() warns of the decimals it rounds to zero or to Infinity.
    verbose = $VERBOSE
    $VERBOSE = nil
    loop do
      x = short_decimal(rng, rng.rand(-325..308))
      return x if x.finite?
    end
  ensure
    $VERBOSE = verbose
  end

  def subnormal(rng)
    return 0.0 if rng.rand(64).zero?

    [rng.rand(1...(1 << 52))].pack("Q<").unpack1("E")
  end

  def power_of_two(rng)
    neighbour(rng, 2.0**rng.rand(-1074..1023), 1)
  end

  def power_of_ten(rng)
    neighbour(rng, Float("1e#{rng.rand(-323..308)}"), 3)
  end

  # x, or a double up to `reach` steps above or below it (half the time x).
  def neighbour(rng, x, reach)
    return x if rng.rand(2).zero?

    steps = rng.rand(1..reach)
    up = rng.rand(2).zero?
    steps.times { x = up ? x.next_float : x.prev_float }
    x
  end

  def tie(rng)
    case rng.rand(5)
    when 0 then rng.rand(2**51...2**52) + 0.5
    when 1 then Float(rng.rand(2**52...2**54)) # 2**53..2**54: even integers, the nearest
    when 2 then rng.rand(1...2**50) + [0.25, 0.75].sample(random: rng)
    when 3 then rng.rand(1...2**49) + [0.125, 0.375, 0.625, 0.875].sample(random: rng)
    else
      digits = rng.rand(16..17)
      mantissa = rng.rand(10**(digits - 2)...10**(digits - 1)) * 10 + 5
      Float("#{mantissa}e#{rng.rand(-30..30) - digits + 1}")
    end
  end

  def integer(rng)
    if rng.rand(2).zero?
      Float(NEAR_INTEGERS.sample(random: rng) + rng.rand(-(2**12)..2**12))
    else
      digits = rng.rand(1..17)
      Float(rng.rand(10**(digits - 1)...10**digits))
    end
  end

  def threshold(rng)
    exponent = THRESHOLD_EXPONENTS.sample(random: rng)
    case rng.rand(4)
    when 0 then neighbour(rng, Float("1e#{exponent}"), 2)
    when 1 # 1-17 digits just below 10**exponent: 0.000099, 9999999.5
      digits = rng.rand(1..17)
      Float("#{10**digits - rng.rand(1..[10**(digits - 1), 999].min)}e#{exponent - digits}")
    when 2 # and just above: 0.00010001, 10000001.0
      digits = rng.rand(1..17)
      Float("#{10**(digits - 1) + rng.rand(1..[10**(digits - 1), 999].min)}e#{exponent - digits + 1}")
    else Float("1e#{exponent}") * Math.exp(rng.rand * 4.6 - 2.3) # within a factor of ten either way
    end
  end

  # ---- json versions in their own GEM_HOME ---------------------------------

  ROOT = File.expand_path("../..", __dir__)

  # tmp/json-versions/VERSION/ruby-RUBY_VERSION: a GEM_HOME holding json
  # VERSION alone, built for this Ruby (the gem's extension is compiled for
  # one Ruby's ABI, and CI's legs share the checkout).
  def json_home(version)
    File.join(ROOT, "tmp", "json-versions", version, "ruby-#{RUBY_VERSION}")
  end

  # Installs json `version` into its GEM_HOME unless it is there (`gem
  # install`, from the gem server, into a directory of its own renamed into
  # place when complete, so that a process running at the same time sees it
  # whole or not at all). Returns nil, or why it could not.
  def install_json(version)
    home = json_home(version)
    installed = -> { Dir.exist?(File.join(home, "gems", "json-#{version}")) }
    return nil if installed.call

    staging = "#{home}.#{Process.pid}.tmp"
    command = [RbConfig.ruby, "-S", "gem", "install", "json", "-v", version, "--install-dir", staging,
               "--no-document"]
    # (Not under a sanitizer's preloaded runtime: the compilers are not what is tested.)
    output = IO.popen(clean_env.merge("LD_PRELOAD" => nil), command, err: %i[child out], &:read)
    unless $?.success?
      return "`gem install json -v #{version}` failed (#{$?}): #{output.lines.last(4).join.strip}"
    end

    begin
      File.rename(staging, home)
    rescue SystemCallError
      raise unless installed.call # another process put it there first
    end
    nil
  ensure
    FileUtils.rm_rf(staging) if staging && Dir.exist?(staging)
  end

  # The environment of a child Ruby that loads json `version` from its
  # GEM_HOME and nothing of the bundle's (to merge over Bundler's unbundled
  # env).
  def json_env(version)
    clean_env.merge("GEM_HOME" => json_home(version), "GEM_PATH" => json_home(version))
  end

  # Bundler's variables removed (a Hash of names to nil for Process.spawn).
  def clean_env
    names = ENV.keys.grep(/\A(BUNDLE_|BUNDLER_)/) + %w[RUBYOPT RUBYLIB GEM_HOME GEM_PATH]
    names.to_h { |name| [name, nil] }
  end
end
