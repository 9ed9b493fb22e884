# frozen_string_literal: true

begin
  require "memory_profiler" # dependency of benchmark-memory
rescue LoadError
  nil
end

module JetsonBench
  # Per-call allocation figures for one contender.
  #
  # objects: GC.stat(:total_allocated_objects) delta over N calls / N. The
  #   counter is not affected by GC runs; the measuring loop itself allocates
  #   nothing (see Runner::Contender#loop), so the figure is the contender's.
  # bytes: MemoryProfiler's total_allocated_memsize over M calls / M, i.e.
  #   ObjectSpace.memsize_of of every Ruby object allocated during the calls
  #   (object slot + its heap buffer, measured after the calls). Scratch
  #   buffers a C extension mallocs and frees itself are NOT included; neither
  #   is capacity a string gave back when it was shrunk before the end.
  module Allocations
    Result = Struct.new(:objects, :bytes, :calls_objects, :calls_bytes, keyword_init: true)

    module_function

    def available_bytes? = defined?(MemoryProfiler) ? true : false

    # loop: a callable taking an iteration count (no allocation of its own).
    # seconds_per_call: rough duration of one call, used to size N and M.
    def measure(loop, seconds_per_call:, quick: false)
      target = quick ? 0.1 : 0.3
      n = (target / [seconds_per_call, 1e-7].max).round.clamp(3, quick ? 2_000 : 10_000)
      loop.call(1) # fill any lazily initialized caches first
      before = GC.stat(:total_allocated_objects)
      loop.call(n)
      objects = (GC.stat(:total_allocated_objects) - before).fdiv(n)

      bytes = nil
      m = nil
      if available_bytes?
        m = ((quick ? 0.03 : 0.1) / [seconds_per_call, 1e-7].max).round.clamp(1, quick ? 50 : 200)
        report = MemoryProfiler.report { loop.call(m) }
        bytes = report.total_allocated_memsize.fdiv(m)
      end
      Result.new(objects: objects, bytes: bytes, calls_objects: n, calls_bytes: m)
    end
  end
end
