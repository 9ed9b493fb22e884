# frozen_string_literal: true

require "test_helper"
require "json"
require "open3"
require "stringio"
require "support/random_floats"
require "support/subprocess"

# Random doubles (test/support/random_floats.rb: bit patterns, short
# decimals at every exponent, subnormals, powers of two and ten and their
# neighbours, ties, integers, the layout thresholds) through the json gem and
# through Jetson, bytes compared: in this process against its json, through
# every entry point that writes a Float; and in child processes against the
# json releases whose Float rules differ from this one's (json 2.10.2:
# Float#to_s; 2.11.3; 2.14.1: the 2.12 rules), each loaded before Jetson
# (script/float_differential --child, which installs nothing: the test
# installs the release into tmp/json-versions first, and skips with the
# reason when it cannot). The sample on every landing; the full run is
# script/float_differential (bench/results/float_differential.md).
#
#   JETSON_FLOAT_DOUBLES=N        doubles in this process (default 200_000)
#   JETSON_FLOAT_CHILD_DOUBLES=N  doubles per json release in a child (default 50_000)
#   JETSON_FLOAT_SEED=S           the Random's seed (default: minitest's --seed)
class FloatRulesTest < Minitest::Test
  include JetsonSubprocess

  DOUBLES = Integer(ENV.fetch("JETSON_FLOAT_DOUBLES", ENV["JETSON_MEMCHECK"] ? "2000" : "200000"))
  CHILD_DOUBLES = Integer(ENV.fetch("JETSON_FLOAT_CHILD_DOUBLES", "50000"))
  PRETTY = { indent: "  ", space: " ", object_nl: "\n", array_nl: "\n" }.freeze
  SCRIPT = File.expand_path("../script/float_differential", __dir__)
  # The json releases run in children, and the rules Jetson must pick for
  # each (Jetson::JSON_FLOAT_RULES, lib/jetson/json_rules.rb).
  RELEASES = { "2.10.2" => "2.10", "2.11.3" => "2.11", "2.14.1" => "2.12" }.freeze

  def seed
    Integer(ENV["JETSON_FLOAT_SEED"] || Minitest.seed)
  end

  # Compares one document's bytes; keeps the first differences.
  def compare(failures, what, doubles, expected, actual)
    @compared += 1
    return if expected == actual || failures.size >= 10

    failures << "#{what} of #{Array(doubles).map { RandomFloats.hex(_1) }.join(',')} (bits): " \
                "json #{expected.inspect[0, 300]}, Jetson #{actual.inspect[0, 300]}"
  end

  def dump_to_io(mod, value)
    io = StringIO.new(+"")
    mod.dump(value, io)
    io.string
  end

  def writer_output(doubles, options = {})
    writer = Jetson::Writer.new(**options)
    writer.push_array { doubles.each { writer.push_value(_1) } }
    writer.to_s
  end

  def test_every_entry_point_against_this_process_json
    failures = []
    @compared = 0
    rng = Random.new(seed)
    categories = Hash.new(0)
    array = []
    DOUBLES.times do |i|
      category, x = RandomFloats.draw(rng)
      categories[category] += 1
      compare(failures, "generate", x, JSON.generate(x), Jetson.generate(x))
      compare(failures, "pretty_generate", x, JSON.pretty_generate(x), Jetson.pretty_generate(x))
      compare(failures, "dump into a StringIO", x, dump_to_io(JSON, x), dump_to_io(Jetson, x))
      compare(failures, "a Symbol key's value", x, JSON.generate({ v: x }), Jetson.generate({ v: x }))
      compare(failures, "a String key's value", x, JSON.generate({ "v" => x }), Jetson.generate({ "v" => x }))
      single = Jetson::Writer.new
      single.push_value(x)
      compare(failures, "Writer#push_value", x, JSON.generate(x), single.to_s)
      array << x
      next if array.size < 7 && i < DOUBLES - 1

      expected = JSON.generate(array)
      compare(failures, "generate (Array)", array, expected, Jetson.generate(array))
      compare(failures, "Writer (Array)", array, expected, writer_output(array))
      compare(failures, "dump into a StringIO (Array)", array, dump_to_io(JSON, array), dump_to_io(Jetson, array))
      pretty = JSON.pretty_generate(array)
      compare(failures, "pretty_generate (Array)", array, pretty, Jetson.pretty_generate(array))
      compare(failures, "pretty Writer (Array)", array, pretty, writer_output(array, PRETTY))
      array = []
    end
    assert_empty failures, "json #{JSON::VERSION} (Jetson::JSON_FLOAT_RULES #{Jetson::JSON_FLOAT_RULES}), " \
                           "seed #{seed}:\n#{failures.join("\n")}"
    assert_operator @compared, :>=, DOUBLES * 6
    assert_equal RandomFloats::CATEGORIES.map(&:first).sort, categories.keys.sort
  end

  RELEASES.each do |version, rules|
    define_method(:"test_json_#{version.tr('.', '_')}_in_a_child") { assert_release(version, rules) }
  end

  # CHILD_DOUBLES doubles through json `version`, loaded before Jetson, in a
  # child: no difference, and Jetson following `rules`.
  def assert_release(version, rules)
    skip_subprocess_under_valgrind
    problem = RandomFloats.install_json(version)
    skip "json #{version} could not be installed: #{problem}" if problem

    command = [RbConfig.ruby, "-I", JetsonSubprocess::LIB, SCRIPT, "--child", version, "--seed", seed.to_s,
               "--show", "10", CHILD_DOUBLES.to_s]
    require "bundler"
    out, err, status = Bundler.with_unbundled_env { Open3.capture3(RandomFloats.json_env(version), *command) }
    assert status.success? && out.include?("RESULT "), "json #{version}, seed #{seed} (#{status}):\n#{out}#{err}"
    assert_includes out.lines.first, "Jetson::JSON_FLOAT_RULES #{rules.inspect}"
    result = JSON.parse(out[/^RESULT (.*)$/, 1])
    assert_equal CHILD_DOUBLES, result["documents"]["single"]
    assert_equal 0, result["differences"]
  end
end
