# frozen_string_literal: true

# The Rails app of the streaming tests and of bench/streaming.rb, booted in a
# server process of its own (test/support/streaming_server.rb) with one view
# layer and one JSON encoder:
#
#   STREAM_WORLD=jetson    `require "jetson/jbuilder"` and "jetson/rails"
#   STREAM_WORLD=jbuilder  `require "jbuilder"` (the gem) and "jetson/rails"
#   STREAM_ENCODER=jetson  Jetson::RailsEncoder installed; stock: ActiveSupport's
#
# Production settings and Rails 7.2's default middleware stack (Rack::ETag,
# Rack::ConditionalGet, the Executor, the logger), so that a stream goes
# through what an app's would. The database (STREAM_DATABASE, a JSON
# ActiveRecord config) is made and filled by the test (StreamingDatabase).

require "json"
require "rails"
require "active_record/railtie"
require "action_controller/railtie"
require "action_view/railtie"
require "logger"
require_relative "stock_encoder_json3"

module StreamingApp
  ROOT = File.expand_path("../streaming/app", __dir__)
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
      case world
      when "jetson" then require "jetson/jbuilder"
      when "jbuilder" then require "jbuilder"
      else raise ArgumentError, "STREAM_WORLD: jetson or jbuilder"
      end
      require "jetson/rails"
      define_application(log)
      Application.config.jetson.rails_encoder = encoder == "jetson"
      Application.initialize!
      StockEncoderJson3.repair_if_refused # ActiveSupport 8.0 under json 3 (see there)
      ActiveRecord::Base.establish_connection(database.transform_keys(&:to_sym))
      require_relative "streaming_app/models"
      require_relative "streaming_app/controllers"
      Rails.error.subscribe(ErrorSubscriber.new)
      ActiveSupport::Notifications.subscribe("sql.active_record") do |*, payload|
        if payload[:name]&.end_with?(" Load") && payload[:sql].include?("LIMIT")
          Stats.batch(payload[:name].delete_suffix(" Load"), Rails.application.executor.active?)
        end
      end
      check(world, encoder)
      Application
    end

    private

    def define_application(log)
      app = Class.new(::Rails::Application) do
        # The defaults of the loaded Rails (8.1: escape_js_separators_in_json off).
        config.load_defaults "#{::Rails::VERSION::MAJOR}.#{::Rails::VERSION::MINOR}"
        config.root = ROOT
        config.eager_load = false
        config.enable_reloading = false
        config.consider_all_requests_local = false
        config.public_file_server.enabled = false
        config.logger = ::Logger.new(log, level: :info)
        config.log_level = :info
        config.secret_key_base = "streaming"
        config.active_support.deprecation = :silence
        config.time_zone = "UTC"
        config.hosts.clear
        config.paths["app/views"] = File.join(ROOT, "views")
        config.paths["config/routes.rb"] = []
        config.paths["config/initializers"] = []
        config.paths["config/environments"] = []
      end
      const_set(:Application, app)
      ENV["DATABASE_URL"] = "sqlite3::memory:" # replaced by establish_connection after boot
    end

    def check(world, encoder)
      jetson_views = ::JbuilderTemplate.instance_method(:partial!).source_location.first.include?("/lib/jetson/")
      abort "StreamingApp: JbuilderTemplate is not the #{world} world's" if jetson_views != (world == "jetson")
      abort "StreamingApp: encoder is not #{encoder}" if Jetson::Rails.installed? != (encoder == "jetson")
    end
  end
end
