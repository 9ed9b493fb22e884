# frozen_string_literal: true

require "open3"
require_relative "puma_server"

module Kit
  # Requests to a Kit::PumaServer as apps get them.
  module Traffic
    module_function

    # A fresh process's first traffic as a load balancer sends it after a
    # deploy: `clients` threads, each on a connection of its own, released
    # at the same moment, each requesting the paths in its own order,
    # `rounds` times. Returns [path, status, body] of every request.
    def burst(server, paths, clients: 6, rounds: 1)
      gate = Queue.new
      threads = Array.new(clients) do |client|
        Thread.new do
          gate.pop
          order = paths.rotate(client)
          Array.new(rounds) { order.map { |path| [path, *response(server, path)] } }.flatten(1)
        end
      end
      clients.times { gate << true }
      threads.flat_map(&:value)
    end

    def response(server, path)
      res = server.get(path)
      [res.code.to_i, res.body.b]
    end

    # Whether wrk (Debian's package) is installed.
    def wrk?
      system("wrk", "--version", out: File::NULL, err: File::NULL) || $?.exitstatus == 1
    rescue SystemCallError
      false
    end

    # wrk's requests per second for `seconds` (whole seconds) over `connections`
    # connections on one thread, its count of non-2xx responses and of
    # requests; on the
    # CPUs `cpus` names (taskset's list) when given.
    def wrk(server, path, connections:, seconds:, cpus: nil)
      headers = PumaServer::HEADERS.flat_map { |name, value| ["-H", "#{name}: #{value}"] }
      command = ["wrk", "-t1", "-c#{connections}", "-d#{seconds}s", *headers, server.url(path)]
      command = ["taskset", "-c", cpus, *command] if cpus
      out, status = Open3.capture2e(*command)
      raise "wrk failed: #{out}" unless status.success?

      rps = out[/Requests\/sec:\s+([\d.]+)/, 1] or raise "wrk printed no rate: #{out}"
      errors = out[/Non-2xx or 3xx responses:\s+(\d+)/, 1].to_i
      [Float(rps), errors, out[/(\d+) requests in/, 1].to_i]
    end
  end
end
