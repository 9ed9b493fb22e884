# frozen_string_literal: true

require "stringio"

# Assertions that run the same call through the json gem and through Jetson
# and compare what comes out: bytes, or the exception's class and message, and
# whether a warning was printed.
module JSONOracle
  Outcome = Struct.new(:value, :error_class, :message, :warned)

  def outcome
    original = $stderr
    $stderr = captured = StringIO.new
    begin
      Outcome.new(yield, nil, nil)
    rescue Exception => e # rubocop:disable Lint/RescueException -- SystemStackError too
      Outcome.new(nil, e.class.name.sub(/\A(JSON|Jetson)::/, ""), normalize_message(e.message))
    end.tap { |o| o.warned = !captured.string.empty? }
  ensure
    $stderr = original
  end

  # error_highlight (Ruby 3.1) appends the failing source line to a
  # NoMethodError's message: not part of the error.
  def normalize_message(message)
    message.sub(/\n\n.*\^+\s*\z/m, "").gsub(/JSON::Ext::Generator::State|JSON::State|Jetson::State/, "State")
  end

  # Both sides get the same input; `json` and `jetson` say how to call each.
  def assert_both(json, jetson, label = nil)
    expected = outcome(&json)
    actual = outcome(&jetson)
    if expected.error_class
      assert_equal [expected.error_class, expected.message], [actual.error_class, actual.message],
                   "#{label}: expected an error like the json gem's, got #{actual.value.inspect}"
    else
      assert_nil actual.error_class, "#{label}: json gem gave #{expected.value.inspect}, Jetson raised #{actual.message}"
      assert_equal expected.value, actual.value, label
      assert_equal expected.value.encoding, actual.value.encoding, label if expected.value.is_a?(String)
    end
    assert_equal expected.warned, actual.warned, "#{label}: warned"
    actual
  end

  def assert_generate_same(obj, opts = nil)
    assert_both(-> { JSON.generate(obj, opts) }, -> { Jetson.generate(obj, opts) }, "generate(#{obj.inspect[0, 80]}, #{opts.inspect})")
  end

  def assert_pretty_same(obj, opts = nil)
    assert_both(-> { JSON.pretty_generate(obj, opts) }, -> { Jetson.pretty_generate(obj, opts) },
                "pretty_generate(#{obj.inspect[0, 80]}, #{opts.inspect})")
  end
end
