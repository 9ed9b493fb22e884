# frozen_string_literal: true

require "rbconfig"

module JetsonBench
  # The benches' world processes (bench/views/world.rb, puma_world.rb,
  # bench/records/world.rb) and the parent that drives them, one message at
  # a time over the child's stdin and stdout: each message is a 4-byte
  # big-endian length and a Marshal dump; a request is an Array, a reply
  # [:ok, value] or [:error, class, message, backtrace]. The child says
  # [:ok, :ready] once it has booted.
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

  # The parent's side: a child started with arguments (after Ruby, with
  # --yjit when the parent has it), driven one request at a time.
  class ChildProcess
    attr_reader :name

    def initialize(name, script, *args, yjit:)
      @name = name
      @io = IO.popen([RbConfig.ruby, *(yjit ? ["--yjit"] : []), script, *args], "r+b")
    end

    def wait_ready
      reply = ChildProtocol.read(@io)
      raise "world #{@name} did not start (#{reply.inspect})" unless reply == [:ok, :ready]
    end

    def call(*message)
      ChildProtocol.write(@io, message)
      reply = ChildProtocol.read(@io) || raise("world #{@name} exited")
      return reply[1] if reply[0] == :ok

      raise "world #{@name}: #{message.first(3).inspect} raised #{reply[1]}: #{reply[2]}\n  #{Array(reply[3]).join("\n  ")}"
    end

    # Closing its stdin ends the child; close waits for it.
    def close
      @io&.close
      @io = nil
    end
  end
end
