# frozen_string_literal: true

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

  # The child's standard output as UTF-8. quiet: drops its standard error
  # (Ractor's experimental warning).
  def ruby_output(script, ruby_flags: [], quiet: false, env: {})
    skip_subprocess_under_valgrind
    redirect = quiet ? { err: File::NULL } : {}
    IO.popen(CLEAN_ENV.merge(env), [RbConfig.ruby, *ruby_flags, "-I", LIB, "-e", script], **redirect, &:read)
      .force_encoding(Encoding::UTF_8)
  end
end
