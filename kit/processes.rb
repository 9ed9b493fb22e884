# frozen_string_literal: true

require "socket"
require "timeout"

module Kit
  # What every server the tests and benchmarks start needs: a free loopback
  # port, and a way to stop the process (its whole process group).
  module Processes
    module_function

    # A port nothing listens on now (the kernel's pick, released at once).
    def free_port
      server = TCPServer.new("127.0.0.1", 0)
      server.addr[1]
    ensure
      server&.close
    end

    # TERM to the process (and its group, group: true), KILL after `grace`
    # seconds, then reaped. Quiet about a process that is already gone.
    def stop(pid, group: false, grace: 10)
      target = group ? -pid : pid
      begin
        Process.kill("TERM", target)
        Timeout.timeout(grace) { Process.wait(pid) }
      rescue Timeout::Error
        Process.kill("KILL", target)
        Process.wait(pid)
      end
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    end
  end
end
