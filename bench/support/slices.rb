# frozen_string_literal: true

module JetsonBench
  # A world process's timed slices (bench/views/world.rb,
  # bench/records/world.rb): whole calls of a block for a given time.
  module Slices
    module_function

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

    # Whole calls until `seconds` have passed: [calls, elapsed].
    def run_for(seconds)
      n = 0
      start = now
      loop do
        yield
        n += 1
        elapsed = now - start
        return [n, elapsed] if elapsed >= seconds
      end
    end

    # GC.start, calls for `warmup` s, GC.start (no contender pays for the
    # garbage of the one before it), whole calls for `seconds` s: [calls,
    # elapsed, GCs during them].
    def time(warmup, seconds, &call)
      GC.start
      run_for(warmup, &call) if warmup.positive?
      GC.start
      count = GC.count
      n, elapsed = run_for(seconds, &call)
      [n, elapsed, GC.count - count]
    end
  end
end
