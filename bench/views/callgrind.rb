# frozen_string_literal: true

require "rbconfig"
require "tmpdir"

module BenchViews
  # bench/views.rb --callgrind=ENDPOINT:LABEL[:N]: instructions per request
  # of one contender, counted by callgrind (no JIT: the interpreter's and the
  # C code's instructions). The world runs twice under valgrind, booting,
  # seeding and making one request each time, then N more requests in the
  # first run and none in the second; the difference ÷ N is one request (for
  # cached, a warm one: the first request fills the cache).
  module Callgrind
    module_function

    def run(spec, contenders)
      endpoint, label, n = spec.split(":")
      n = Integer(n || 5)
      abort "--callgrind: endpoint #{endpoint.inspect} (one of #{ENDPOINTS.keys.join(', ')})" unless ENDPOINTS.key?(endpoint)
      c = contenders.find { |x| x.runs?(endpoint) && x.label.downcase.include?(label.to_s.downcase) } ||
          abort("--callgrind: no contender of #{endpoint} matches #{label.inspect} (--list)")
      abort "--callgrind: valgrind not found" unless system("which valgrind > /dev/null 2>&1")

      puts "callgrind: #{c.label} [world #{c.world}], #{endpoint} (#{c.path(endpoint)}), #{n} requests minus 0, no JIT"
      counts = [n, 0].to_h { |k| [k, instructions(c, endpoint, k)] }
      per = (counts[n] - counts[0]).fdiv(n)
      puts "  totals: #{counts[n]} Ir (#{n} requests), #{counts[0]} Ir (0 requests)"
      puts "  #{format('%.2f', per / 1e6)} M instructions per request"
    end

    def instructions(contender, endpoint, requests)
      Dir.mktmpdir("bench-views-callgrind") do |dir|
        out = File.join(dir, "callgrind.out")
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=#{out}", RbConfig.ruby,
                   WorldProcess::SCRIPT, contender.world,
                   "--callgrind-run=#{contender.path(endpoint)},#{contender.encoder},#{requests}"]
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        system(*command, out: File::NULL, err: File.join(dir, "valgrind.log")) ||
          abort("valgrind failed:\n#{File.read(File.join(dir, 'valgrind.log')).lines.last(20).join}")
        total = File.foreach(out).find { |l| l.start_with?("totals:", "summary:") }
        puts "  #{requests} requests: #{format('%.0f', Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)} s under valgrind"
        Integer(total.split[1])
      end
    end
  end
end
