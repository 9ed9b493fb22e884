# frozen_string_literal: true

# A world of bench/views.rb: a child process that boots the kit's views app
# (kit/views_app.rb, its bench setup) with one view layer and serves the
# parent's requests until its stdin closes. Nothing it does is timed while another world runs: the parent asks
# one world at a time and waits for the answer.
#
#   ruby [--yjit] bench/views/world.rb WORLD
#
# Protocol (Kit::ChildProcess's): each message is a 4-byte big-endian
# length and a Marshal dump. Requests are Arrays:
#   [:info]                              Ruby, YJIT, loaded gem versions, Jbuilder's origin
#   [:check, path, encoder]              one request: status, content type, body, SQL
#                                        count, cache reads/hits/writes
#   [:floor_body, endpoint, body]        what the floors of endpoint render
#   [:time, path, encoder, warmup, time] GC.start, requests for `warmup` s, GC.start,
#                                        requests for `time` s: [requests, seconds, GCs]
#   [:alloc, path, encoder, n]           GC.stat(:total_allocated_objects) delta per request
#                                        over n requests (after one untimed)
# Replies: [:ok, value] or [:error, class, message, backtrace].
# encoder: "stock" (the encoder ActiveSupport picks: bench/support/rails_stock.rb) or "jetson"
# (Jetson::RailsEncoder), set before every check, slice and count.
#
# With `--callgrind-run=PATH,ENCODER,N` instead of serving, the world makes
# one request, then N more, and exits (bench/views.rb --callgrind runs it
# under valgrind with N and with 0 and subtracts).

$stdout.sync = true
require_relative "../support/bundle"
require_relative "../support/rails_stock" # before anything can replace the encoder
require_relative "../../kit/views_app"
require_relative "../../kit/child_process"
require_relative "database"
require_relative "../support/slices"
require "rack/mock"

module BenchViews
  # Boots the world's app: the database of --database (Database.url), and
  # under --oj what apps that keep Oj have in config/initializers.
  def self.boot(world)
    Kit::ViewsApp.boot(world, :bench, database_url: Database.url(world), oj_optimize_rails: !ENV["JETSON_VIEWS_OJ"].nil?)
    listen(ENV["JETSON_VIEWS_LISTEN"])
  end

  # bench/views.rb --listen=MODE: who listens to the render events.
  #   info (or nil)  the app as booted: logger at :info, nobody listens;
  #   debug          the log level debug, as `config.log_level = :debug`:
  #                  ActionView's, ActiveRecord's and ActionController's log
  #                  subscribers listen, format their lines and write them
  #                  (to File::NULL);
  #   regex          logger at :info and one subscriber to /render/ (a block
  #                  doing nothing), as APM agents subscribe to every render
  #                  event.
  LISTEN_MODES = %w[info debug regex].freeze

  def self.listen(mode)
    case mode
    when nil, "", "info" then nil
    when "debug"
      logger = ActiveSupport::Logger.new(File::NULL, level: :debug)
      [ActionView::Base, ActiveRecord::Base, ActionController::Base].each { |k| k.logger = logger }
      Rails.logger = logger
      ActiveSupport::LogSubscriber.logger = logger
    when "regex" then ActiveSupport::Notifications.subscribe(/render/) { |*| nil }
    else raise ArgumentError, "--listen: one of #{LISTEN_MODES.join(', ')}, not #{mode.inspect}"
    end
  end

  module World
    module_function

    def app = Kit::ViewsApp::Application

    # The encoder the app has once booted: ActiveSupport's own, or under
    # --oj Oj's (Oj.optimize_rails) or Jetson's (jetson/jbuilder takes it
    # over after Oj: lib/jetson/rails/oj_takeover.rb).
    def booted_encoder
      @booted_encoder ||= ActiveSupport.json_encoder
    end

    def encoder=(name)
      ActiveSupport.json_encoder = case name
                                   when "stock" then ENV["JETSON_VIEWS_OJ"] ? booted_encoder : JetsonBench::RailsStock::ENCODER
                                   when "jetson" then Jetson::RailsEncoder
                                   else raise ArgumentError, "encoder #{name.inspect}"
                                   end
    end

    # One request through the whole stack; the body is iterated (as a server
    # does) and closed. The Rack env is built anew for every request, as
    # Rails changes it; that costs every contender the same.
    def request(path)
      status, _headers, body = app.call(Rack::MockRequest.env_for(path, "HTTP_ACCEPT" => "application/json"))
      body.each { |_chunk| nil }
      body.close if body.respond_to?(:close)
      status
    end

    def check(path)
      sql = 0
      cache = { reads: 0, hits: 0, writes: 0 }
      subscribers = [
        ActiveSupport::Notifications.subscribe("sql.active_record") { |*, p| sql += 1 unless p[:name] == "SCHEMA" },
        ActiveSupport::Notifications.subscribe(/\Acache_(read|read_multi|write|write_multi)\.active_support\z/) do |name, *, p|
          case name
          when "cache_read.active_support" then cache[:reads] += 1; cache[:hits] += 1 if p[:hit]
          when "cache_read_multi.active_support" then cache[:reads] += Array(p[:key]).size; cache[:hits] += Array(p[:hits]).size
          when "cache_write.active_support" then cache[:writes] += 1
          when "cache_write_multi.active_support" then cache[:writes] += p[:key].size
          end
        end
      ]
      status, headers, body = app.call(Rack::MockRequest.env_for(path, "HTTP_ACCEPT" => "application/json"))
      text = +""
      body.each { |chunk| text << chunk }
      body.close if body.respond_to?(:close)
      { status: status, content_type: headers["content-type"], body: text, sql: sql, cache: cache }
    ensure
      subscribers&.each { |s| ActiveSupport::Notifications.unsubscribe(s) }
    end

    def time(path, warmup, seconds) = JetsonBench::Slices.time(warmup, seconds) { request(path) }

    def alloc(path, n)
      request(path)
      before = GC.stat(:total_allocated_objects)
      n.times { request(path) }
      (GC.stat(:total_allocated_objects) - before).fdiv(n)
    end

    def info
      origin = defined?(::JbuilderTemplate) ? ::JbuilderTemplate.instance_method(:cache!).source_location&.first : nil
      yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? true : false
      gems = %w[rails jbuilder props_template jb oj sqlite3 json].to_h { |g| [g, Gem.loaded_specs[g]&.version&.to_s] }
      { world: Kit::ViewsApp.world, pid: Process.pid, ruby: RUBY_DESCRIPTION, yjit: yjit, gems: gems,
        jbuilder_template: origin, jetson: defined?(::Jetson::VERSION) ? ::Jetson::VERSION : nil,
        booted_encoder: booted_encoder.name,
        handlers: ActionView::Template::Handlers.extensions.map(&:to_s).sort }
    end

    def perform(message)
      case message
      in [:info] then info
      in [:check, path, encoder] then (self.encoder = encoder) && check(path)
      in [:floor_body, endpoint, body] then Kit::ViewsApp::Bench::FLOOR_BODIES[endpoint] = body.freeze
      in [:time, path, encoder, warmup, seconds] then (self.encoder = encoder) && time(path, warmup, seconds)
      in [:alloc, path, encoder, n] then (self.encoder = encoder) && alloc(path, n)
      end
    end

    # Answers the parent's messages until its pipe closes (handler: this
    # world, or bench/views/puma_world.rb's).
    def serve(handler = self)
      Kit::ChildProtocol.serve(handler)
    end

    # Without the parent: a floor renders this world's own view body of
    # the endpoint.
    def own_floor_bodies
      Kit::ViewsApp::Bench::RELATIONS.each_key do |endpoint|
        view = endpoint == "index" ? "/posts.json" : "/posts/#{endpoint}.json"
        Kit::ViewsApp::Bench::FLOOR_BODIES[endpoint] = check(view)[:body].freeze
      end
    end

    def callgrind_run(spec)
      path, encoder, n = spec.split(",")
      self.encoder = encoder
      own_floor_bodies
      request(path)
      Integer(n).times { request(path) }
    end
  end
end

if $PROGRAM_NAME == __FILE__
  world = ARGV.fetch(0) { abort "usage: ruby bench/views/world.rb WORLD [--callgrind-run=PATH,ENCODER,N]" }
  BenchViews.boot(world)
  BenchViews::World.booted_encoder # before any slice sets one
  if (spec = ARGV.find { |a| a.start_with?("--callgrind-run=") })
    BenchViews::World.callgrind_run(spec.split("=", 2).last)
  else
    BenchViews::World.serve
  end
end
