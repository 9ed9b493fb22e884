# frozen_string_literal: true

# A world of bench/records.rb: a child process connected to one database,
# with one Jbuilder loaded, serving the parent's requests until its stdin
# closes. The jbuilder gem and jetson/jbuilder both define ::Jbuilder, so they
# cannot share a process (as in bench/views.rb); and a process per database
# keeps the models on ActiveRecord::Base, as an app has them.
#
#   ruby [--yjit] bench/records/world.rb WORLD CONFIG_JSON
#   ruby bench/records/world.rb WORLD CONFIG_JSON --callgrind=N CASE_NAMES_JSON  (under valgrind)
#
# WORLD: "jetson" (jetson/jbuilder, jetson/rails, alba, panko, blueprinter)
# or "jbuilder" (the jbuilder gem). Protocol (as bench/views/world.rb): a
# 4-byte big-endian length and a Marshal dump each way. Requests:
#   [:info]                                versions, database server, Jbuilder's origin
#   [:seed]                                create the tables and write the rows: row counts
#   [:check, case, label]                  one call: { output:, sql: [statements] }
#   [:time, case, label, warmup, seconds]  GC.start, calls for `warmup` s, GC.start,
#                                          whole calls for `seconds` s: [calls, seconds, GCs]
#   [:alloc, case, label, n]               GC.stat(:total_allocated_objects) per call over n calls
# Replies: [:ok, value] or [:error, class, message, backtrace].
# In the :loaded mode every request first loads the contender's collection
# anew and reads every value (untimed), and drops it afterwards, so that the
# heap the timed calls run on does not hold every contender's records.

$stdout.sync = true
require_relative "../support/bundle"
require "json"
require "active_record"
require_relative "../support/rails_stock" # before anything can replace the encoder
WORLD = ARGV.fetch(0)
case WORLD
when "jbuilder" then require "jbuilder"
when "jetson"
  require "jetson/jbuilder"
  require "jetson/rails"
  require_relative "serializers"
else abort "usage: bench/records/world.rb jetson|jbuilder CONFIG_JSON"
end
if ENV["JETSON_BENCH_OJ"] == "1" # --oj: an app that called Oj.optimize_rails (cases.rb)
  require "oj"
  Oj.optimize_rails
  OJ_ENCODERS = { "stock" => Oj::Rails::Encoder, "jetson" => Jetson::OjEncoder }.freeze
end
require_relative "../support/runner" # JetsonBench::Compiler
require_relative "../support/slices"
require_relative "../../kit/child_process"
require_relative "cases"
require_relative "data"

module RecordsBench
  module World
    Entry = Struct.new(:kase, :contender, :once, :loop, :data)

    module_function

    def setup(config)
      Data.app_settings!
      Data.connect(config)
      @entries = {}
      RecordsBench.cases.each do |kase|
        kase.contenders.each do |c|
          next unless c.world == WORLD

          data = []
          once, loop = JetsonBench::Compiler.compile(c.code, { data: data }, "#{kase.name}: #{c.label}")
          @entries[[kase.name, c.label]] = Entry.new(kase, c, once, loop, data)
        end
      end
    end

    def entry(name, label) = @entries.fetch([name, label]) { raise ArgumentError, "no contender #{label} in #{name}" }

    def prepare(entry)
      ActiveSupport.json_encoder = if defined?(OJ_ENCODERS) then OJ_ENCODERS.fetch(entry.contender.encoder)
                                   elsif entry.contender.encoder == "jetson" then Jetson::RailsEncoder
                                   else JetsonBench::RailsStock::ENCODER
                                   end
      entry.data[0] = Data.read_all(TOPLEVEL_BINDING.eval(entry.kase.load)) unless entry.kase.fresh?
    end

    def with(name, label)
      e = entry(name, label)
      prepare(e)
      yield e
    ensure
      e&.data&.clear
    end

    def check(name, label)
      with(name, label) do |e|
        sql = []
        sub = ActiveSupport::Notifications.subscribe("sql.active_record") do |*, p|
          sql << p[:sql] unless %w[SCHEMA TRANSACTION].include?(p[:name])
        end
        begin
          out = e.once.call
        ensure
          ActiveSupport::Notifications.unsubscribe(sub)
        end
        { output: e.contender.floor? ? nil : out, sql: sql, returned: out.class.name }
      end
    end

    def time(name, label, warmup, seconds)
      with(name, label) do |e|
        once = e.once
        JetsonBench::Slices.time(warmup, seconds) { once.call }
      end
    end

    def alloc(name, label, n)
      with(name, label) do |e|
        e.once.call
        before = GC.stat(:total_allocated_objects)
        e.loop.call(n)
        (GC.stat(:total_allocated_objects) - before).fdiv(n)
      end
    end

    # --callgrind (bench/records/callgrind.rb): under valgrind, for an empty
    # loop and then for each contender of the cases named: 2 warm calls,
    # GC.start, the marker, `calls` calls, the marker. The marker
    # (Process.times) makes callgrind dump its counters, so each contender's
    # calls are one dump file; the manifest says which.
    def callgrind(calls, names)
      marks = 0
      mark = -> { Process.times; marks += 1 }
      measure = lambda do |loop|
        loop.call(2)
        GC.start
        mark.call
        loop.call(calls)
        mark.call
        marks
      end
      empty = JetsonBench::Compiler.compile("nil", {}, "empty loop").last
      measure.call(empty) # the first pair of marks is cold
      manifest = { "baseline" => measure.call(empty), "rows" => [] }
      @entries.each do |(name, label), _|
        next unless names.include?(name)

        manifest["rows"] << [name, label, with(name, label) { |e| measure.call(e.loop) }]
      end
      manifest.merge("dumps" => marks)
    end

    def info
      conn = ActiveRecord::Base.connection
      server = case conn.adapter_name
               when /postgres/i then conn.select_value("SHOW server_version")
               when /sqlite/i then conn.select_value("select sqlite_version()")
               else "?"
               end
      gems = %w[activerecord activesupport sqlite3 pg jbuilder alba panko_serializer blueprinter oj json]
             .to_h { |g| [g, Gem.loaded_specs[g]&.version&.to_s] }
      jbuilder = Jbuilder.ancestors.map(&:name).include?("Jetson::Builder") ? "jetson/jbuilder" : "jbuilder gem #{Jbuilder::VERSION}"
      { world: WORLD, pid: Process.pid, yjit: defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? true : false,
        adapter: conn.adapter_name, server: server, gems: gems, jbuilder: jbuilder,
        serializers: WORLD == "jetson" ? RecordsBench.serializer_versions : {} }
    end

    def perform(message)
      case message
      in [:info] then info
      in [:seed] then Data.seed!
      in [:counts] then Data.counts
      in [:check, name, label] then check(name, label)
      in [:time, name, label, warmup, seconds] then time(name, label, warmup, seconds)
      in [:alloc, name, label, n] then alloc(name, label, n)
      end
    end

    def serve
      Kit::ChildProtocol.serve(self)
    end
  end
end

if $PROGRAM_NAME == __FILE__
  config = JSON.parse(ARGV.fetch(1), symbolize_names: true)
  RecordsBench::World.setup(config)
  if (spec = ARGV.find { |a| a.start_with?("--callgrind=") })
    manifest = RecordsBench::World.callgrind(Integer(spec.split("=", 2).last), JSON.parse(ARGV.fetch(3)))
    puts "callgrind-world: #{JSON.generate(manifest)}"
  else
    RecordsBench::World.serve
  end
end
