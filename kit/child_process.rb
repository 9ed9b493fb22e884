# frozen_string_literal: true

require "rbconfig"

module Kit
  # A child Ruby process and the parent that drives it, one message at a
  # time over the child's stdin and stdout: the benches' world processes
  # (bench/views/world.rb, puma_world.rb, bench/records/world.rb) and the
  # Jbuilder views tests' oracle (test/support/views_oracle.rb). A view
  # layer gets a process of its own because the jbuilder gem and
  # jetson/jbuilder both define ::Jbuilder.
  #
  # Each message is a 4-byte big-endian length and a Marshal dump; a request
  # is an Array, a reply [:ok, value] or [:error, class, message, backtrace].
  # The child says [:ok, :ready] once it has booted.
  module ChildProtocol
    module_function

    def write(io, object)
      payload = Marshal.dump(object)
      io.write([payload.bytesize].pack("N"), payload)
      io.flush
    end

    def read(io)
      header = io.read(4)
      return nil if header.nil? || header.bytesize < 4

      Marshal.load(io.read(header.unpack1("N")))
    end

    # In the child: answers each message with handler.perform(message)
    # until the parent closes the pipe. Anything else the child prints goes
    # to /dev/null, not into the protocol.
    def serve(handler)
      protocol = $stdout.dup.binmode
      $stdout.reopen(File::NULL, "w")
      $stdin.binmode
      write(protocol, [:ok, :ready])
      while (message = read($stdin))
        reply = begin
          [:ok, handler.perform(message)]
        rescue Exception => e # rubocop:disable Lint/RescueException -- reported to the parent
          [:error, e.class.name, e.message, e.backtrace&.first(12)]
        end
        write(protocol, reply)
      end
    end
  end

  # The parent's side: a child started with arguments (after Ruby's own
  # options, and --yjit when asked), driven one request at a time.
  class ChildProcess
    # The child could not start, exited, or raised on a request.
    class Failure < StandardError; end

    attr_reader :name

    def initialize(name, script, *args, yjit: false, ruby_options: [])
      @name = name
      @io = IO.popen([RbConfig.ruby, *ruby_options, *(yjit ? ["--yjit"] : []), script, *args], "r+b")
    end

    def wait_ready
      reply = ChildProtocol.read(@io)
      raise Failure, "#{@name} did not start (#{reply.inspect})" unless reply == [:ok, :ready]
    end

    def call(*message)
      ChildProtocol.write(@io, message)
      reply = ChildProtocol.read(@io) || raise(Failure, "#{@name} exited")
      return reply[1] if reply[0] == :ok

      raise Failure, "#{@name}: #{message.first(3).inspect[0, 300]} raised #{reply[1]}: #{reply[2]}\n  " \
                     "#{Array(reply[3]).join("\n  ")}"
    end

    # Closing its stdin ends the child; close waits for it.
    def close
      @io&.close
      @io = nil
    end
  end
end
