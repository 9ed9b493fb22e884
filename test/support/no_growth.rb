# frozen_string_literal: true

require "objspace"

# For fault tests: runs a fault many times and asserts that afterwards the
# live objects, and the bytes they hold (malloc'd buffers included), are
# back near where they were. A leaked object or buffer per run would show
# as hundreds of objects or kilobytes per run.
#
# Each measurement is taken right after a batch of runs, three of them, and
# the smaller of the two growths between them is asserted: a leak grows
# both, while the last run's garbage, which may still be reachable from the
# stack there (on Ruby 3.4, the 16 KB chunk an io raised on, now and then),
# can make at most one of them grow.
module AssertNoGrowth
  def assert_no_growth(label, runs: 200)
    3.times { yield }
    samples = Array.new(3) { after_runs(runs) { yield } }
    growths = samples.each_cons(2).map { |before, after| [after[0] - before[0], after[1] - before[1]] }
    grown = growths.map(&:first).min
    assert_operator grown, :<, runs / 2, "#{label}: #{grown} more live objects after #{runs} runs (#{growths})"
    grown_bytes = growths.map(&:last).min
    assert_operator grown_bytes, :<, runs * 256, "#{label}: #{grown_bytes} more bytes held after #{runs} runs (#{growths})"
  end

  def after_runs(runs)
    runs.times { yield }
    GC.start
    [GC.stat(:heap_live_slots), held_bytes]
  end

  # The bytes live objects hold, without the threads' stacks: a thread's
  # memsize takes its VM stack (1 MiB) once the thread has first run, and
  # minitest's parallel workers, started before the tests, may first run in
  # the middle of a measurement (seen on a 2-core Intel Xeon: 2 MiB "held"
  # by two workers). A thread a run leaves behind still counts, as a live
  # object.
  def held_bytes
    ObjectSpace.memsize_of_all - ObjectSpace.each_object(Thread).sum { |thread| ObjectSpace.memsize_of(thread) }
  end
end
