# frozen_string_literal: true

require "objspace"

# For fault tests: runs a fault many times and asserts that afterwards the
# live objects, and the bytes they hold (malloc'd buffers included), are
# back near where they were. A leaked object or buffer per run would show
# as hundreds of objects or kilobytes per run.
module AssertNoGrowth
  def assert_no_growth(label, runs: 200)
    3.times { yield }
    GC.start
    base = GC.stat(:heap_live_slots)
    base_bytes = held_bytes
    runs.times { yield }
    GC.start
    grown = GC.stat(:heap_live_slots) - base
    assert_operator grown, :<, runs / 2, "#{label}: #{grown} more live objects after #{runs} runs"
    grown_bytes = held_bytes - base_bytes
    assert_operator grown_bytes, :<, runs * 256, "#{label}: #{grown_bytes} more bytes held after #{runs} runs"
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
