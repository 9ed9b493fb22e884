# frozen_string_literal: true

# The GC cost an app sees when one generator runs for a while on its own:
# each contender alone for SECONDS after a GC.start, on each corpus document,
# twice (order A B C C B A); calls per second, collections and GC time
# (GC.stat(:time)) per 1,000 calls, and minor page faults per call, the
# better of the two slices. bench/generate.rb charges each contender its own
# collections in short interleaved slices, where the few collections of a
# slice on a large document (three to six) weigh more than they do in an
# app's steady state; this is the steady state.
#
#   bundle exec ruby --yjit bench/gc_steady.rb [--seconds=S] [document ...]

require_relative "support/setup"
require_relative "support/page_faults"

seconds = 5.0
verbose = false
names = []
ARGV.each do |arg|
  if arg.start_with?("--seconds=") then seconds = Float(arg.split("=", 2)[1])
  elsif arg == "--verbose" then verbose = true
  else names << arg
  end
end
names = JetsonBench::Documents::NAMES if names.empty?

def measure(seconds)
  GC.start
  gc_ms = GC.stat(:time)
  count = GC.count
  faults = JetsonBench::PageFaults.minor
  calls = 0
  start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  while (elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start) < seconds
    yield
    calls += 1
  end
  { ips: calls / elapsed, gcs: 1000.0 * (GC.count - count) / calls, gc_ms: 1000.0 * (GC.stat(:time) - gc_ms) / calls,
    faults: faults && (JetsonBench::PageFaults.minor - faults).fdiv(calls) }
end

coder = JSON::Coder.new
puts "Each contender alone for #{seconds} s per slice, two slices (A B C C B A), the faster one shown."
puts "Ruby #{RUBY_VERSION}#{JetsonBench::Environment.yjit? ? ' +YJIT' : ''}, json #{JSON::VERSION}, " \
     "Jetson #{JetsonBench::Environment.jetson_description}"
names.each do |name|
  doc = JetsonBench::Documents.load(name).value
  contenders = { "Jetson.generate" => -> { Jetson.generate(doc) }, "JSON.generate" => -> { JSON.generate(doc) },
                 "JSON::Coder#dump" => -> { coder.dump(doc) } }
  runs = Hash.new { |h, k| h[k] = [] }
  (contenders.to_a + contenders.to_a.reverse).each do |label, call|
    runs[label] << measure(seconds, &call)
    warn "  #{name} #{label}: #{runs[label].last.transform_values { |v| v&.round(1) }}" if verbose
  end
  puts "", "#{name}.json", format("  %-18s %10s %12s %16s %14s", "contender", "i/s", "GCs/1k calls", "GC ms/1k calls",
                                  "minflt/call")
  runs.each do |label, slices|
    best = slices.max_by { |s| s[:ips] }
    puts format("  %-18s %10.1f %12.1f %16.1f %14s", label, best[:ips], best[:gcs], best[:gc_ms],
                best[:faults] ? format("%.0f", best[:faults]) : "n/a")
  end
end
