# frozen_string_literal: true

require "test_helper"
require "rbconfig"

# Jetson::BUILD_INFO says which vector code the loaded build escapes strings
# with (ext/jetson/bytes/simd.h). A build whose SSE2, AVX2 or NEON path was
# compiled out by mistake would still pass every other test, only slower:
# here it fails. The builds that turn the paths off on purpose (`rake
# test:portable`, JETSON_DISABLE_SIMD=1) or use another compiler (`rake
# test:clang`) say what they expect in JETSON_EXPECT_SIMD,
# JETSON_EXPECT_PLAIN_CHAR and JETSON_EXPECT_COMPILER; a build made with
# JETSON_ASSERTS=1 outside the sanitizer run, in JETSON_EXPECT_ASSERTS=1.
class BuildInfoTest < Minitest::Test
  def info
    Jetson::BUILD_INFO
  end

  # What this machine's build must use when nothing turned the paths off.
  def expected_simd
    return ENV["JETSON_EXPECT_SIMD"] if ENV["JETSON_EXPECT_SIMD"]

    case RbConfig::CONFIG["host_cpu"]
    when /\A(x86_64|amd64)\z/
      # The AVX2 loop is chosen at run time from the CPU's flags.
      flags = File.exist?("/proc/cpuinfo") ? File.read("/proc/cpuinfo")[/^flags\s*:.*$/] : nil
      return /\Asse2(\+avx2)?\z/ unless flags

      flags.split.include?("avx2") ? "sse2+avx2" : "sse2"
    when /\A(aarch64|arm64)\z/ then "neon"
    else "none"
    end
  end

  def test_the_build_escapes_with_the_vector_code_of_its_cpu
    expected = expected_simd
    if expected.is_a?(Regexp)
      assert_match expected, info.fetch(:simd)
    else
      assert_equal expected, info.fetch(:simd),
                   "host_cpu #{RbConfig::CONFIG["host_cpu"]}, compiler #{info[:compiler]}"
    end
  end

  def test_compiler
    expected = ENV.fetch("JETSON_EXPECT_COMPILER", "")
    assert info.fetch(:compiler).start_with?(expected),
           "BUILD_INFO[:compiler] is #{info[:compiler].inspect}, expected #{expected.inspect}..."
  end

  def test_plain_char_signedness_of_the_architecture
    # arm64's C ABI makes plain char unsigned, x86-64's signed: the arm64 leg
    # (script/arm64_leg) runs the json tests where it is unsigned.
    # `rake test:portable` builds with -funsigned-char to run arm64's case
    # on x86-64 (JETSON_EXPECT_PLAIN_CHAR).
    expected = ENV["JETSON_EXPECT_PLAIN_CHAR"] ||
               (RbConfig::CONFIG["host_cpu"].match?(/\A(aarch64|arm64|arm.*|powerpc.*|ppc.*|s390.*)\z/) ? "unsigned" : "signed")
    assert_equal expected, info.fetch(:plain_char)
  end

  # JT_ASSERT's checks (ext/jetson/bytes/base.h) are compiled into the
  # ASan+UBSan build (`rake test:asan`, whose environment says
  # JETSON_SANITIZER=1) and out of every other: an ASan run without them
  # would check fewer invariants than it claims, a release build with them
  # would pay for checks on its hot paths.
  def test_assertions_on_in_the_sanitizer_build_only
    expected = ENV.key?("JETSON_EXPECT_ASSERTS") ? ENV["JETSON_EXPECT_ASSERTS"] == "1" : ENV["JETSON_SANITIZER"] == "1"
    assert_equal expected, info.fetch(:asserts),
                 "BUILD_INFO[:asserts] in #{ENV["JETSON_EXTENSION"] || "the ordinary build"}"
  end

  def test_frozen_and_shareable
    assert_predicate info, :frozen?
    assert Ractor.shareable?(info) if defined?(Ractor)
  end
end
