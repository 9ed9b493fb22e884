# frozen_string_literal: true

require "open3"
require "rbconfig"

# Child Ruby processes, for what a test cannot do in its own process: start
# Ractors (and the warning that comes with them) or load Jetson into a Ruby
# that has not loaded anything else.
module JetsonSubprocess
  # Children must not inherit bundler/setup, which loads the gemspec.
  CLEAN_ENV = { "RUBYOPT" => nil, "RUBYLIB" => nil }.freeze
  LIB = File.expand_path("../../lib", __dir__)

  # Under valgrind a fork-and-exec leaves a truncated report behind, and the
  # child is not checked anyway.
  def skip_subprocess_under_valgrind
    skip "subprocess tests do not run under valgrind" if ENV["JETSON_MEMCHECK"]
  end

  # The child's standard output as UTF-8. A child that exits with a failure
  # fails the test with its standard error, so a script broken by a new Ruby
  # (Ractor#take is gone in 4.0) is not mistaken for empty output. quiet:
  # keeps a successful child's standard error (Ractor's experimental warning)
  # off the console.
  def ruby_output(script, ruby_flags: [], quiet: false, env: {})
    skip_subprocess_under_valgrind
    out, err, status = Open3.capture3(CLEAN_ENV.merge(env), RbConfig.ruby, *ruby_flags, "-I", LIB, "-e", script)
    assert status.success?, "child Ruby failed (#{status}):\n#{err}"
    $stderr.print(err) unless quiet
    out.force_encoding(Encoding::UTF_8)
  end

  # A Ractor's result in a child script: Ractor#value from Ruby 3.5/4.0,
  # Ractor#take before (4.0 removed take).
  RACTOR_VALUE = "def ractor_value(r) = r.respond_to?(:value) ? r.value : r.take\n"

  # The standard output of a child Ruby running `script` after `require
  # "jetson"`, with warnings off (Ractor's experimental one) and
  # ractor_value(r) defined; skipped where Ruby has no Ractor.
  def ractor_output(script)
    skip "no Ractor" unless defined?(Ractor)
    ruby_output("$VERBOSE = nil\nrequire \"jetson\"\n#{RACTOR_VALUE}#{script}", quiet: true)
  end
end
