# frozen_string_literal: true

# The oracle of the Jbuilder views tests: a child process that boots ViewsApp
# with the REAL jbuilder gem and runs the scenarios it is sent
# (ViewsRunner.perform), one at a time, for as long as the test process
# lives.
#
# Protocol: each message is a 4-byte big-endian length and a Marshal dump:
# the parent sends a scenario, the child answers with [:ok, result] or
# [:error, class name, message, backtrace] when the scenario itself could not
# run. Nothing else goes to the parent: the child's $stdout is /dev/null.

require "rbconfig"

module ViewsOracle
  class Failure < StandardError; end

  ROOT = File.expand_path("../..", __dir__)

  class << self
    def perform(scenario)
      reply = exchange(scenario)
      return reply[1] if reply[0] == :ok

      raise Failure, "the jbuilder oracle failed: #{reply[1]}: #{reply[2]}\n#{Array(reply[3]).first(8).join("\n")}"
    end

    def stop
      return unless @io

      @io.close # waits for the child
      @io = nil
    end

    private

    def exchange(scenario)
      start unless @io
      write_message(@io, scenario)
      read_message(@io) || raise(Failure, "the jbuilder oracle exited")
    end

    def start
      command = [RbConfig.ruby, "-I", File.join(ROOT, "lib"), "-I", File.join(ROOT, "test"), __FILE__, "--child"]
      @io = IO.popen(command, "r+b")
      at_exit { stop }
    end

    public

    def write_message(io, object)
      payload = Marshal.dump(object)
      io.write([payload.bytesize].pack("N"), payload)
      io.flush
    end

    def read_message(io)
      header = io.read(4)
      return nil if header.nil? || header.bytesize < 4

      Marshal.load(io.read(header.unpack1("N")))
    end

    def child_main
      protocol = $stdout.dup.binmode
      $stdout.reopen(File::NULL, "w")
      $stdin.binmode
      require_relative "views_app"
      ViewsApp.boot(:jbuilder)
      require_relative "views_runner"
      while (scenario = read_message($stdin))
        reply = begin
          [:ok, ViewsRunner.perform(scenario)]
        rescue Exception => e # rubocop:disable Lint/RescueException -- reported to the parent
          [:error, e.class.name, e.message, e.backtrace]
        end
        write_message(protocol, reply)
      end
    end
  end
end

ViewsOracle.child_main if $PROGRAM_NAME == __FILE__ && ARGV == ["--child"]
