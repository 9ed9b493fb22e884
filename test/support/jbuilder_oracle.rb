# frozen_string_literal: true

# The oracle of the Jbuilder differential tests: a child process that loads
# the REAL jbuilder gem and renders a batch of cases (see
# JbuilderCases.render for what a case is).
#
# Protocol: the parent writes Marshal.dump(Array of cases) to the child's
# stdin and closes it; the child renders every case in order and writes
# Marshal.dump(Array of outcomes) to its stdout, one outcome per case:
# [:ok, value] (a String from target!, with its encoding, or a Ruby value) or
# [:error, class_name, message]. Anything a template prints goes nowhere;
# the child's stderr is the parent's.
#
# The child is `RbConfig.ruby -Ilib -Itest` this file, with the parent's
# environment (so the same bundle under `bundle exec`).

require "rbconfig"
require "digest"

module JbuilderOracle
  class Failure < StandardError; end

  ROOT = File.expand_path("../..", __dir__)

  # Parent side: render every case with real Jbuilder, in one child process.
  #
  # With JETSON_JBUILDER_ORACLE_CACHE=path, the outcomes are kept in that file
  # for the same batch of cases: `rake memcheck` fills it in a plain run, then
  # runs the tests under valgrind, where spawning a child is not possible
  # (valgrind follows the fork up to the exec and leaves a broken report).
  def self.render_all(cases)
    command = [RbConfig.ruby, "-I", File.join(ROOT, "lib"), "-I", File.join(ROOT, "test"), __FILE__, "--child"]
    payload = Marshal.dump(cases)
    cache = ENV["JETSON_JBUILDER_ORACLE_CACHE"]
    if cache && File.exist?(cache)
      digest, cached = Marshal.load(File.binread(cache))
      return cached if digest == Digest::SHA256.hexdigest(payload)
    end
    output = IO.popen(command, "r+b") do |io|
      io.write(payload)
      io.close_write
      io.read
    end
    status = $?
    raise Failure, "the Jbuilder oracle exited with #{status.inspect}" unless status.success?

    outcomes = Marshal.load(output)
    unless outcomes.is_a?(Array) && outcomes.size == cases.size
      raise Failure, "the Jbuilder oracle returned #{outcomes.class} of #{outcomes.size rescue '?'} for #{cases.size} cases"
    end

    File.binwrite(cache, Marshal.dump([Digest::SHA256.hexdigest(payload), outcomes])) if cache
    outcomes
  end

  # Child side.
  def self.child_main
    protocol = $stdout.dup.binmode
    $stdout.reopen(File::NULL, "w") # nothing but the answer goes to the parent
    $stdin.binmode
    cases = Marshal.load($stdin.read)

    require "jbuilder"
    require_relative "jbuilder_cases"
    unless Jbuilder.instance_method(:target!).source_location.first.include?("/jbuilder-")
      abort "jbuilder oracle: the loaded Jbuilder is not the jbuilder gem's"
    end

    outcomes = cases.map { |kase| JbuilderCases.portable(JbuilderCases.render(kase)) }
    protocol.write(Marshal.dump(outcomes))
    protocol.flush
  end
end

JbuilderOracle.child_main if $PROGRAM_NAME == __FILE__ && ARGV == ["--child"]
