# frozen_string_literal: true

# A world of bench/views.rb --server: a child process that boots the kit's
# views app with one view layer, exactly as bench/views/world.rb does, sets
# ActiveSupport's encoder once for the whole process, and serves the app
# with puma on 127.0.0.1 (a free port): single mode (no workers), min = max
# = THREADS threads. The parent drives it over stdin/stdout with
# world.rb's messages (4-byte length + Marshal dump):
#
#   ruby [--yjit] bench/views/puma_world.rb WORLD ENCODER THREADS
#
#   [:info]                          world.rb's info, plus port, threads, encoder, puma
#   [:floor_body, endpoint, body]    what the floors of endpoint render
#   [:watch] / [:unwatch]            count SQL queries and cache reads/hits/writes
#                                    between the two (only around the check requests)
#   [:settle, gc]                    wait until no puma thread has a request (an
#                                    abandoned request of the last wrk run included),
#                                    then GC.start if gc: GC.stat's count, major_gc_count
#                                    and time, and puma's request count
#   [:rack, path, n]                 the Rack level in this process, as world.rb times it:
#                                    GC.start, n requests through the app on this thread
#                                    (no socket, no puma): [n, seconds, GC.stat deltas]
#
# When stdin closes, puma stops and the process exits.
#
# (--database=postgresql etc.: every connection reaches the world's own
# database on the server; nothing to copy.)
# sqlite3 ":memory:" is a database per connection: the boot fills the
# connection of the main thread, and a second puma thread checks out a
# connection of its own. Every connection opened after the boot therefore
# starts as a copy of the booted database (SQLite's backup API; requests
# only read), and the boot's connection goes back to the pool, as after a
# request: with 1 thread the puma thread uses it, as the Rack-level world's
# requests do; with 2 each thread has one, with the same rows.
#
# One encoder per process: ActiveSupport.json_encoder is a process-wide
# setting, not a per-thread one, so with two puma threads a per-request
# switch could hand one request the other's encoder. The Hashes contender
# with Jetson::RailsEncoder gets a server of its own.

require_relative "world"
require "puma"
require "puma/configuration"
require "puma/log_writer"
require "puma/server"

module BenchViews
  module PumaWorld
    # Prepended to the SQLite3 adapter after the boot.
    module CopyMemoryDatabase
      class << self
        attr_accessor :source
      end

      private

      def connect
        super
        backup = ::SQLite3::Backup.new(@raw_connection, "main", CopyMemoryDatabase.source, "main")
        backup.step(-1)
        backup.finish
      end
    end

    module_function

    def start(world, encoder, threads)
      BenchViews.boot(world)
      World.encoder = encoder
      copy_memory_database if ActiveRecord::Base.connection_db_config.adapter == "sqlite3"
      ActiveRecord::Base.connection_handler.clear_active_connections!(:all)
      @threads = threads
      @encoder = encoder
      null = File.open(File::NULL, "w")
      @server = Puma::Server.new(Rails.application, nil,
                                 min_threads: threads, max_threads: threads, environment: "production",
                                 log_writer: Puma::LogWriter.new(null, $stderr))
      @server.add_tcp_listener("127.0.0.1", 0)
      @port = @server.connected_ports.first
      @server.run
    end

    def copy_memory_database
      source = ::SQLite3::Database.new(":memory:")
      backup = ::SQLite3::Backup.new(source, "main", ActiveRecord::Base.lease_connection.raw_connection, "main")
      backup.step(-1)
      backup.finish
      CopyMemoryDatabase.source = source
      ActiveRecord::ConnectionAdapters::SQLite3Adapter.prepend(CopyMemoryDatabase)
    end

    def info
      World.info.merge(port: @port, threads: @threads, encoder: @encoder,
                       encoder_class: ActiveSupport.json_encoder.name, puma: Puma::Const::PUMA_VERSION)
    end

    def watch
      @counts = { sql: 0, reads: 0, hits: 0, writes: 0 }
      counts = @counts
      @subscribers = [
        ActiveSupport::Notifications.subscribe("sql.active_record") { |*, p| counts[:sql] += 1 unless p[:name] == "SCHEMA" },
        ActiveSupport::Notifications.subscribe(/\Acache_(read|read_multi|write|write_multi)\.active_support\z/) do |name, *, p|
          case name
          when "cache_read.active_support" then counts[:reads] += 1; counts[:hits] += 1 if p[:hit]
          when "cache_read_multi.active_support"
            counts[:reads] += Array(p[:key]).size
            counts[:hits] += Array(p[:hits]).size
          when "cache_write.active_support" then counts[:writes] += 1
          when "cache_write_multi.active_support" then counts[:writes] += p[:key].size
          end
        end
      ]
      true
    end

    def unwatch
      @subscribers.each { |s| ActiveSupport::Notifications.unsubscribe(s) }
      @subscribers = nil
      @counts
    end

    def settle(gc)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 60
      loop do
        stats = @server.stats
        break if stats[:busy_threads].zero? && stats[:backlog].zero?
        raise "puma still busy after 60 s: #{stats.inspect}" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

        sleep 0.002
      end
      GC.start if gc
      gc_stat.merge(requests: @server.stats[:requests_count])
    end

    def gc_stat = GC.stat.slice(:count, :major_gc_count, :time)

    def rack(path, n)
      GC.start
      before = gc_stat
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      n.times { World.request(path) }
      [n, Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, gc_stat.to_h { |k, v| [k, v - before[k]] }]
    end

    def perform(message)
      case message
      in [:rack, path, n] then rack(path, n)
      in [:info] then info
      in [:floor_body, endpoint, body] then Kit::ViewsApp::Bench::FLOOR_BODIES[endpoint] = body.freeze
      in [:watch] then watch
      in [:unwatch] then unwatch
      in [:settle, gc] then settle(gc)
      end
    end

    def serve
      World.serve(self)
    ensure
      @server&.stop(true)
    end
  end
end

if $PROGRAM_NAME == __FILE__
  world, encoder, threads = ARGV
  abort "usage: ruby bench/views/puma_world.rb WORLD ENCODER THREADS" unless threads
  BenchViews::PumaWorld.start(world, encoder, Integer(threads))
  BenchViews::PumaWorld.serve
end
