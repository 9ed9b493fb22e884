# frozen_string_literal: true

module BenchViews
  # wrk (Debian's, /usr/bin/wrk) as the load of bench/views.rb --server: one
  # wrk thread (-t1) with as many connections as the server has threads,
  # HTTP/1.1 keep-alive, a request count and a time bound enforced by
  # bench/views/wrk.lua (see there), the latency distribution (--latency).
  module Wrk
    BIN = ENV.fetch("JETSON_BENCH_WRK", "wrk")
    SCRIPT = File.expand_path("wrk.lua", __dir__)
    UNITS_MS = { "us" => 0.001, "ms" => 1.0, "s" => 1000.0, "m" => 60_000.0, "h" => 3_600_000.0 }.freeze

    module_function

    def version
      out = IO.popen([BIN, "-v"], err: [:child, :out], &:read)
      out.lines.first.to_s.sub(/\s*Copyright.*/, "").strip
    rescue SystemCallError => e
      abort "bench/views.rb --server needs wrk (#{BIN}): #{e.message}"
    end

    # requests: stop after this many responses (0: no limit); seconds: stop
    # after this long (always given: the bound). Returns responses, seconds
    # (first request written to last response counted, by the script's
    # clock), req/s, p50/p99 in ms (wrk's Latency Distribution), non-200
    # responses, socket errors, wrk's own Requests/sec, the wall time.
    def run(port:, path:, connections:, requests:, seconds:)
      command = [BIN, "-t1", "-c#{connections}", "-d#{seconds.ceil + 2}s", "--timeout", "5s", "--latency",
                 "-s", SCRIPT, "-H", "Host: #{ServerProcess::HOST}", "-H", "Accept: application/json", "http://127.0.0.1:#{port}#{path}"]
      env = { "JETSON_WRK_REQUESTS" => requests.to_s, "JETSON_WRK_SECONDS" => seconds.to_s }
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      io = IO.popen(env, command, err: [:child, :out])
      out = io.read
      io.close
      io = nil
      raise "wrk exited with #{$?.exitstatus}:\n#{out}" unless $?.success?

      parse(out).merge(wall: Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, command: command.join(" "))
    ensure
      if io # interrupted: do not leave wrk running
        Process.kill(:TERM, io.pid) rescue nil # rubocop:disable Style/RescueModifier
        io.close rescue nil # rubocop:disable Style/RescueModifier
      end
    end

    def parse(out)
      line = out[/^jetson-wrk responses=(\d+) seconds=([\d.]+) non200=(\d+)$/] || raise("wrk: no jetson-wrk line in\n#{out}")
      responses, seconds, non200 = line.scan(/=([\d.]+)/).flatten.map { |v| Float(v) }
      latency = %w[50 99].to_h do |p|
        value, unit = out.match(/^\s*#{p}%\s+([\d.]+)(us|ms|s|m|h)\s*$/)&.captures || raise("wrk: no #{p}% line in\n#{out}")
        [p, Float(value) * UNITS_MS.fetch(unit)]
      end
      { responses: responses.to_i, seconds: seconds, rps: seconds.positive? ? responses / seconds : 0.0,
        p50: latency["50"], p99: latency["99"], non200: non200.to_i, errors: out[/Socket errors: (.*)$/, 1],
        wrk_rps: out[%r{^Requests/sec:\s+([\d.]+)}, 1]&.to_f }
    end
  end
end
