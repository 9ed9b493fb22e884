# frozen_string_literal: true

# The Rails app of the streaming tests and of bench/streaming.rb, booted in a
# server process of its own (Kit::StreamingApp::Server) with one view layer
# and one JSON encoder:
#
#   STREAM_WORLD=jetson    `require "jetson/jbuilder"` and "jetson/rails"
#   STREAM_WORLD=jbuilder  `require "jbuilder"` (the gem) and "jetson/rails"
#   STREAM_ENCODER=jetson  Jetson::RailsEncoder installed; stock: ActiveSupport's
#
# Production settings and Rails 7.2's default middleware stack (Rack::ETag,
# Rack::ConditionalGet, the Executor, the logger), so that a stream goes
# through what an app's would. The database (STREAM_DATABASE, a JSON
# ActiveRecord config) is made and filled by the test or benchmark
# (Kit::StreamingApp::Database).

require "json"
require_relative "rails_app"

module Kit
  module StreamingApp
    ROOT = File.join(__dir__, "streaming_app")
    COLUMNS = %i[id number total placed_at status note].freeze

    # What the server saw, for /stats: each batch query's time (CLOCK_MONOTONIC,
    # comparable with the client's), whether the executor was running then,
    # and the errors Rails.error was given.
    module Stats
      @lock = Mutex.new
      @batches = []
      @reports = []

      class << self
        def batch(table, executor_active)
          @lock.synchronize { @batches << [table, Process.clock_gettime(Process::CLOCK_MONOTONIC), executor_active] }
        end

        def report(error, handled, source, context)
          @lock.synchronize do
            @reports << { "class" => error.class.name, "message" => error.message, "handled" => handled,
                          "source" => source, "cause" => error.cause&.class&.name,
                          "bytes_sent" => context[:json_stream_bytes_sent] }
          end
        end

        def to_h
          @lock.synchronize do
            pool = ActiveRecord::Base.connection_pool.stat
            { "batches" => @batches.map { |table, at, active| { "table" => table, "at" => at, "executor" => active } },
              "reports" => @reports.dup, "busy" => pool[:busy], "connections" => pool[:connections],
              "hwm_kib" => File.read("/proc/self/status")[/VmHWM:\s+(\d+)/, 1].to_i }
          end
        end

        def reset
          @lock.synchronize do
            @batches.clear
            @reports.clear
          end
        end
      end
    end

    class ErrorSubscriber
      def report(error, handled:, severity:, context:, source: nil)
        Stats.report(error, handled, source, context)
      end
    end

    class << self
      def boot(world: ENV.fetch("STREAM_WORLD"), encoder: ENV.fetch("STREAM_ENCODER"),
               database: JSON.parse(ENV.fetch("STREAM_DATABASE")), log: ENV.fetch("STREAM_LOG", File::NULL))
        raise ArgumentError, "STREAM_WORLD: jetson or jbuilder" unless %w[jetson jbuilder].include?(world)

        RailsApp.require_world(world, also: %w[jetson/rails])
        # The defaults of the loaded Rails (8.1: escape_js_separators_in_json
        # off); errors become error responses, as in an app; nothing cached.
        # The database is connected after boot.
        RailsApp.define(self, root: ROOT, views: File.join(ROOT, "views"), secret: "streaming", log: log,
                              raise_errors: false, caching: false)
        Application.config.jetson.rails_encoder = encoder == "jetson"
        RailsApp.initialize!(Application)
        ActiveRecord::Base.establish_connection(database.transform_keys(&:to_sym))
        require_relative "streaming_app/models"
        require_relative "streaming_app/controllers"
        Rails.error.subscribe(ErrorSubscriber.new)
        ActiveSupport::Notifications.subscribe("sql.active_record") do |*, payload|
          if payload[:name]&.end_with?(" Load") && payload[:sql].include?("LIMIT")
            Stats.batch(payload[:name].delete_suffix(" Load"), Rails.application.executor.active?)
          end
        end
        RailsApp.check_world("Kit::StreamingApp", world)
        abort "Kit::StreamingApp: encoder is not #{encoder}" if Jetson::Rails.installed? != (encoder == "jetson")
        Application
      end
    end
  end
end
