# frozen_string_literal: true

require_relative "processes"
require "socket"
require "tmpdir"
require "fileutils"

module Kit
  # A redis-server of the test's own (Debian's redis-server), on a free local
  # port, with nothing persisted; stopped when the process exits. `start`
  # returns its URL, or nil with the reason in `unavailable` when there is no
  # redis-server to run.
  module RedisServer
    class << self
      attr_reader :unavailable

      def url
        return @url if defined?(@url)

        @url = start
      end

      private

      def start
        binary = ENV.fetch("REDIS_SERVER", "redis-server")
        unless system("command -v #{binary} > /dev/null 2>&1")
          @unavailable = "#{binary} is not installed (apt-get install redis-server)"
          return nil
        end

        port = free_port
        dir = Dir.mktmpdir("jetson-redis")
        pid = Process.spawn(binary, "--port", port.to_s, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                            "--dir", dir, out: File::NULL, err: File::NULL)
        at_exit { stop(pid, dir) }
        return "redis://127.0.0.1:#{port}" if wait_until_up(port)

        @unavailable = "#{binary} did not start on port #{port}"
        nil
      end

      def free_port = Kit::Processes.free_port

      def wait_until_up(port)
        200.times do
          socket = TCPSocket.new("127.0.0.1", port)
          socket.write("PING\r\n")
          return true if socket.gets&.start_with?("+PONG")
        rescue SystemCallError
          sleep 0.05
        ensure
          socket&.close
        end
        false
      end

      def stop(pid, dir)
        Process.kill("TERM", pid)
        Process.wait(pid)
      rescue SystemCallError
        nil
      ensure
        FileUtils.rm_rf(dir)
      end
    end
  end
end
