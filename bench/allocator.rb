# frozen_string_literal: true

# What malloc costs a generator's results: Jetson.generate and
# JSON::Coder#dump on Arrays of Integers from 4 KB to 3 MB of JSON, under
# glibc's malloc and under jemalloc (LD_PRELOAD, as many Rails deployments
# run), microseconds and minor page faults per call.
#
#   bundle exec ruby --yjit bench/allocator.rb [--no-write]
#
# Every contender, size and allocator runs in a process of its own, pinned
# to the last CPU: malloc's state (what it has freed, trimmed or kept) is the
# process's, and in one process the contender that ran before would decide
# part of the next one's page faults. Each child calls its generator for a
# quarter of its calls, collects, then times the calls from that collected
# heap. Results: bench/results/allocator.md.

require "rbconfig"
require "open3"
require_relative "support/bundle"
require_relative "support/report"
require_relative "support/page_faults"

module JetsonBench
  module Allocator
    SIZES = [500, 1000, 5000, 12_500, 37_500, 190_000, 375_000].freeze # Integers: 4 KB to 3 MB
    CONTENDERS = ["Jetson.generate", "JSON::Coder#dump"].freeze
    JEMALLOC = ["/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
                "/usr/lib64/libjemalloc.so.2"].find { File.exist?(_1) }

    module_function

    # In the child: [bytes, us per call, faults per call].
    def child(contender, count)
      require "json"
      require "jetson"
      doc = (1_000_000..(1_000_000 + count)).to_a
      coder = JSON::Coder.new
      call = contender == "Jetson.generate" ? -> { Jetson.generate(doc) } : -> { coder.dump(doc) }
      bytes = call.call.bytesize
      calls = (200_000_000 / bytes).clamp(20, 5000)
      (calls / 4).times { call.call }
      GC.start
      faults = PageFaults.minor
      start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      calls.times { call.call }
      elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
      [bytes, elapsed / calls * 1e6, faults && (PageFaults.minor - faults).fdiv(calls)]
    end

    def run(preload, contender, count)
      env = { "JETSON_ALLOCATOR_CHILD" => "#{contender}:#{count}" }
      env["LD_PRELOAD"] = preload if preload
      pin = File.executable?("/usr/bin/taskset") ? ["taskset", "-c", (Etc.nprocessors - 1).to_s] : []
      out, err, status = Open3.capture3(env, *pin, RbConfig.ruby, *(Environment.yjit? ? ["--yjit"] : []), __FILE__)
      abort "bench/allocator.rb: child failed: #{err}" unless status.success?
      bytes, us, faults = out.split.map { _1 == "nil" ? nil : Float(_1) }
      { bytes: bytes.to_i, us: us, faults: faults }
    end

    def main(argv)
      allocators = [["glibc malloc", nil]]
      allocators << ["jemalloc (LD_PRELOAD #{JEMALLOC})", JEMALLOC] if JEMALLOC
      lines = ["# Generator results under two allocators", "",
               "`bundle exec ruby --yjit bench/allocator.rb`: each contender, size and allocator in a process of " \
               "its own, pinned to one CPU; µs and minor page faults per call from a collected heap.", ""]
      lines << "- CPU: #{Environment.cpu_model}" << "- Ruby: #{RUBY_DESCRIPTION}" <<
        "- Repo revision: #{Environment.git_revision}" << "- Date: #{Time.now.utc.iso8601}"
      lines << "- jemalloc: not installed (Debian: libjemalloc2), glibc only" unless JEMALLOC
      allocators.each do |name, preload|
        lines << "" << "## #{name}" << "" <<
          "| JSON | Jetson µs/call | JSON::Coder µs/call | Jetson ÷ JSON::Coder (time) | Jetson faults/call | JSON::Coder faults/call |" <<
          "| ---: | ---: | ---: | ---: | ---: | ---: |"
        SIZES.each do |count|
          jetson, coder = CONTENDERS.map { run(preload, _1, count) }
          lines << format("| %d KB | %.1f | %.1f | %.2f | %s | %s |", jetson[:bytes] / 1024, jetson[:us], coder[:us],
                          jetson[:us] / coder[:us], jetson[:faults]&.round(1) || "n/a", coder[:faults]&.round(1) || "n/a")
          puts lines.last
        end
      end
      text = "#{lines.join("\n")}\n"
      if argv.include?("--no-write")
        puts text
      else
        path = JetsonBench.results_path("allocator.md")
        File.write(path, text)
        puts "wrote #{path}"
      end
    end
  end
end

if (spec = ENV["JETSON_ALLOCATOR_CHILD"])
  contender, _, count = spec.rpartition(":")
  puts JetsonBench::Allocator.child(contender, Integer(count)).map { _1.nil? ? "nil" : _1 }.join(" ")
else
  JetsonBench::Allocator.main(ARGV)
end
