# frozen_string_literal: true

require "json"
require "net/http"
require "socket"
require "rbconfig"
require "timeout"
require "digest"
require_relative "../processes"

module Kit
  module StreamingApp
    # Kit::StreamingApp under puma on a free loopback port, in a child process
    # of its own (its peak RSS is its own, and a crash is not the test's), and
    # the client side: Net::HTTP reading the chunked body as it arrives.
    #
    #   server = Kit::StreamingApp::Server.start(world: "jetson", encoder: "jetson", database: config)
    #   server.get("/stream/records")         # => Response (body, chunks, first chunk's time, error)
    #   server.get_digest("/stream/records")  # => Digested (the body's SHA-256, bytes, chunks, times)
    #   server.stop                           # always, in an ensure
    #
    # Run as a program, this file is the child: it boots the app, starts puma
    # and prints "READY <port>".
    class Server
      LIB = File.expand_path("../../lib", __dir__)
      BOOT_TIMEOUT = 60
      READ_TIMEOUT = 60

      Response = Struct.new(:status, :headers, :body, :chunks, :first_chunk_at, :error, keyword_init: true) do
        def complete? = error.nil?
      end

      attr_reader :port, :log_path

      def self.start(**options)
        server = new(**options)
        server.start
        server
      end

      def initialize(world:, encoder:, database:, log_path: File::NULL, threads: 4, env: {})
        @env = env.merge("STREAM_WORLD" => world, "STREAM_ENCODER" => encoder, "STREAM_DATABASE" => JSON.generate(database),
                         "STREAM_LOG" => log_path, "STREAM_THREADS" => threads.to_s,
                         # bundler/setup is the child's own (Bundler's env would load it twice)
                         "RUBYOPT" => nil)
        @log_path = log_path
      end

      def start
        reader, writer = IO.pipe
        @pid = Process.spawn(@env, RbConfig.ruby, "--yjit", "-I", LIB, "-rbundler/setup", __FILE__,
                             out: writer, err: $stderr, pgroup: true)
        writer.close
        line = Timeout.timeout(BOOT_TIMEOUT) { reader.gets }
        raise "streaming server did not start (#{line.inspect})" unless line&.start_with?("READY ")

        @port = Integer(line.split[1])
      rescue StandardError
        stop
        raise
      ensure
        reader&.close
      end

      def stop
        Kit::Processes.stop(@pid) if @pid
        @pid = nil
      end

      def http
        http = Net::HTTP.new("127.0.0.1", port)
        http.open_timeout = 5
        http.read_timeout = READ_TIMEOUT
        http.max_retries = 0 # a GET cut off must not be sent again
        http
      end

      # The whole response, chunk by chunk as Net::HTTP reads them; a body cut
      # off by the server shows as error (EOFError and the like), with what
      # arrived before it. on_chunk: called with each chunk (may pause).
      def get(path, on_chunk: nil)
        chunks = []
        first = nil
        response = nil
        error = nil
        begin
          http.start do |conn|
            conn.request(Net::HTTP::Get.new(path, "Accept" => "application/json")) do |res|
              response = res
              res.read_body do |chunk|
                first ||= Process.clock_gettime(Process::CLOCK_MONOTONIC)
                chunks << chunk
                on_chunk&.call(chunk, chunks)
              end
            end
          end
        rescue EOFError, IOError, SystemCallError, Net::ReadTimeout, Net::HTTPBadResponse => e
          error = e
        end
        Response.new(status: response && Integer(response.code), headers: response&.to_hash, body: chunks.join,
                     chunks: chunks.size, first_chunk_at: first, error: error)
      end

      Digested = Struct.new(:status, :digest, :bytes, :chunks, :ttfb, :total, keyword_init: true)

      # The whole response without keeping its body (a stream of a million
      # records is 131 MB): the SHA-256 of the body, its bytes and chunks, the
      # seconds from the request to the first chunk (ttfb) and to the last
      # (total).
      def get_digest(path)
        digest = Digest::SHA256.new
        bytes = chunks = 0
        status = ttfb = nil
        start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        http.start do |conn|
          conn.request(Net::HTTP::Get.new(path, "Accept" => "application/json")) do |res|
            status = Integer(res.code)
            res.read_body do |chunk|
              ttfb ||= Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
              digest << chunk
              bytes += chunk.bytesize
              chunks += 1
            end
          end
        end
        Digested.new(status: status, digest: digest.hexdigest, bytes: bytes, chunks: chunks, ttfb: ttfb,
                     total: Process.clock_gettime(Process::CLOCK_MONOTONIC) - start)
      end

      def json(path)
        res = http.start { |conn| conn.get(path) }
        JSON.parse(res.body)
      end

      # Reads max_bytes of the response over a bare socket, then closes it: a
      # client that goes away in the middle.
      def get_and_disconnect(path, max_bytes)
        socket = TCPSocket.new("127.0.0.1", port)
        socket.write("GET #{path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n")
        read = 0
        while read < max_bytes
          raise "no data from the server within #{READ_TIMEOUT} s" unless socket.wait_readable(READ_TIMEOUT)

          data = socket.readpartial(65_536)
          read += data.bytesize
        end
        read
      ensure
        socket&.close
      end

      # Polls /stats until the block is true of it (the server finishes a
      # request's close after the client has its last byte).
      def stats_until(timeout: 10)
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
        loop do
          stats = json("/stats")
          return stats if yield(stats) || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

          sleep 0.05
        end
      end
    end
  end
end

if $PROGRAM_NAME == __FILE__
  require "puma"
  require "puma/server"
  require_relative "../streaming_app"

  # If the test process dies without stopping us, we stop ourselves.
  parent = Process.ppid
  Thread.new do
    loop do
      sleep 1
      Process.kill("TERM", Process.pid) if Process.ppid != parent
    end
  end

  app = Kit::StreamingApp.boot
  threads = Integer(ENV.fetch("STREAM_THREADS", "4"))
  server = Puma::Server.new(app, nil, min_threads: 1, max_threads: threads,
                                      log_writer: Puma::LogWriter.new($stderr, $stderr))
  port = server.add_tcp_listener("127.0.0.1", 0).addr[1]
  stop = Queue.new
  %w[TERM INT].each { |signal| trap(signal) { stop << signal } }
  thread = server.run
  $stdout.puts "READY #{port}"
  $stdout.flush
  stop.pop
  server.stop(true)
  thread.join(10)
end
