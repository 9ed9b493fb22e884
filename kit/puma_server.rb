# frozen_string_literal: true

require "json"
require "net/http"
require "rbconfig"
require_relative "blog"
require_relative "processes"

module Kit
  # The kit's blog app (Kit::Blog) under puma as it deploys: `puma -C
  # config/puma.rb` in the app's directory, the generated config (Rails'
  # default threads), production unless told otherwise, on a free loopback
  # port; in cluster mode with `workers:` (forked after boot, preload_app!).
  #
  #   server = Kit::PumaServer.start(world: "jetson", workers: 2)
  #   server.get("/posts.json")     # => Net::HTTPResponse
  #   server.diagnostics_by_pid     # => { pid => Jetson::Rails.diagnostics of that worker }
  #   server.stop                   # always, in an ensure
  class PumaServer
    BOOT_TIMEOUT = 120
    # A request to the app once it listens: puma answers /up (Rails'
    # health check) once a worker has booted.
    READY_PATH = "/up"

    # Every request's: as to https://kit.example/ through a proxy that ends
    # TLS (production's force_ssl and assume_ssl then redirect nothing).
    HEADERS = { "Accept" => "application/json", "Host" => "kit.example", "X-Forwarded-Proto" => "https" }.freeze

    attr_reader :port, :world, :workers, :log_path

    def self.start(**options)
      server = new(**options)
      server.start
      server
    end

    def initialize(world:, workers: 0, threads: Blog::DEFAULT_THREADS, rails_env: "production", dir: Blog.dir,
                   log_path: File::NULL, yjit: true, env: {}, headers: {}, cpus: nil)
      @world = world
      @cpus = cpus
      @headers = HEADERS.merge(headers)
      @workers = workers
      @dir = dir
      @log_path = log_path
      @port = Processes.free_port
      @env = Blog.env(world: world, rails_env: rails_env).merge(
        "PORT" => @port.to_s, "RAILS_MAX_THREADS" => threads.to_s, "KIT_WORKERS" => workers.to_s,
        "RUBY_YJIT_ENABLE" => yjit ? "1" : "0"
      ).merge(env)
    end

    def start
      command = [RbConfig.ruby, "-S", "bundle", "exec", "puma", "-C", "config/puma.rb"]
      # cpus: "1" runs puma and every thread it starts on those CPUs only
      # (taskset), away from a load generator on the others.
      command = ["taskset", "-c", @cpus, *command] if @cpus
      @pid = Process.spawn(@env, *command, chdir: @dir, out: @log_path, err: @log_path, pgroup: true)
      wait_until_ready
      self
    rescue StandardError
      stop
      raise
    end

    def stop
      Processes.stop(@pid, group: true, grace: 20) if @pid
      @pid = nil
    end

    def url(path) = "http://127.0.0.1:#{port}#{path}"

    # One GET on a new connection (so that, in cluster mode, any worker may
    # take it).
    def get(path, headers = {})
      Net::HTTP.start("127.0.0.1", port, open_timeout: 5, read_timeout: 120) do |http|
        http.get(path, @headers.merge(headers))
      end
    end

    # Each worker's Jetson diagnostics (a single-mode server is one
    # worker), asked until every worker has answered.
    def diagnostics_by_pid(attempts: 200)
      found = {}
      attempts.times do
        body = JSON.parse(get("/kit/diagnostics").body, symbolize_names: true)
        found[body[:pid]] = body
        break if found.size >= [workers, 1].max
      end
      raise "only #{found.size} of #{workers} workers answered /kit/diagnostics" if found.size < [workers, 1].max

      found
    end

    private

    def wait_until_ready
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + BOOT_TIMEOUT
      loop do
        begin
          return if get(READY_PATH).code == "200"
        rescue SystemCallError, EOFError, Net::ReadTimeout, Net::OpenTimeout
          nil
        end
        unless Process.wait(@pid, Process::WNOHANG).nil?
          @pid = nil
          raise "puma exited while booting (#{log_tail})"
        end
        raise "puma did not answer #{READY_PATH} within #{BOOT_TIMEOUT} s (#{log_tail})" if
          Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

        sleep 0.05
      end
    end

    def log_tail
      @log_path == File::NULL ? "no log kept" : File.read(@log_path).lines.last(20).join
    rescue SystemCallError
      "no log"
    end
  end
end
