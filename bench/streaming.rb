# frozen_string_literal: true

# Streaming a collection against building it whole (docs/streaming.md):
# 100,000 records on SQLite through puma, requested over loopback with
# Net::HTTP; time to first byte, total time and the server's peak RSS growth
# for
#
#   render json_stream: (as_json; Jetson::RailsEncoder, and ActiveSupport's stock encoder)
#   render json_stream: partial: (jetson/jbuilder, and the jbuilder gem's partial)
#   render json_stream: true    (the array! view below, streamed by jetson/jbuilder)
#   render json:        (ActiveSupport's stock encoder, and Jetson::RailsEncoder)
#   the jbuilder gem's `json.array! @orders, partial:, as:` view (and jetson/jbuilder's)
#
# Each contender runs in a server process of its own (its VmHWM is its own),
# booted fresh, warmed up with two small requests of the same kind, then
# measured on RUNS requests each after a GC.start in the server. Every body
# is checked against the stock encoder's (as_json kinds) or the jbuilder
# gem's (partial kinds) bytes, so a contender that wrote other bytes would
# stop the run. SQLite without its memory map, whose file pages would count
# as the server's RSS.
#
#   bundle exec ruby --yjit bench/streaming.rb [--rows N] [--runs N] [--no-write]
#   bundle exec rake bench:streaming
#
# Writes bench/results/streaming.md (--no-write: only prints it).

require "bundler/setup"
require "optparse"
require "tmpdir"
require "fileutils"
require "time"
require "etc"
require_relative "../kit/streaming_app/server"
require_relative "../kit/streaming_app/database"
require_relative "support/results_dir"

module BenchStreaming
  CONTENDERS = [
    # label, world, encoder, path, reference (the bytes it must equal)
    ["render json_stream: (Jetson::RailsEncoder)", "jetson", "jetson", "/stream/records", :as_json],
    ["render json_stream: (stock encoder)", "jbuilder", "stock", "/stream/records", :as_json],
    ["render json_stream: partial: (jetson/jbuilder)", "jetson", "jetson", "/stream/partial", :view],
    ["render json_stream: partial: (jbuilder gem)", "jbuilder", "stock", "/stream/partial", :view],
    ["render json_stream: true (the array! view, jetson/jbuilder)", "jetson", "jetson", "/stream/view_array", :view],
    ["render json: (stock encoder)", "jbuilder", "stock", "/reference/records", :as_json],
    ["render json: (Jetson::RailsEncoder)", "jetson", "jetson", "/reference/records", :as_json],
    ["jbuilder gem array! view", "jbuilder", "stock", "/reference/partial", :view],
    ["jetson/jbuilder array! view", "jetson", "jetson", "/reference/partial", :view]
  ].freeze

  Result = Struct.new(:label, :ttfb, :total, :growth_mb, :bytes, :chunks, :digest, keyword_init: true)

  module_function

  def options
    opts = { rows: 100_000, runs: 3, write: true }
    OptionParser.new do |o|
      o.on("--rows N", Integer) { |n| opts[:rows] = n }
      o.on("--runs N", Integer) { |n| opts[:runs] = n }
      o.on("--no-write") { opts[:write] = false }
    end.parse!
    opts
  end

  def run
    opts = options
    dir = Dir.mktmpdir("jetson-bench-streaming-")
    database = Kit::StreamingApp::Database.sqlite(dir, mmap: false)
    Kit::StreamingApp::Database.fill(database, "orders", opts[:rows])
    results = CONTENDERS.map do |label, world, encoder, path, reference|
      result = measure(label, world, encoder, database, path, opts[:runs])
      warn format("%-60s ttfb %8.1f ms  total %7.2f s  RSS +%7.1f MB  %d chunks", label, result.ttfb * 1000,
                  result.total, result.growth_mb, result.chunks)
      [result, reference]
    end
    check(results)
    write(results.map(&:first), opts)
  ensure
    FileUtils.rm_rf(dir) if dir
  end

  def measure(label, world, encoder, database, path, runs)
    server = Kit::StreamingApp::Server.start(world: world, encoder: encoder, database: database)
    2.times { server.get("#{path}?count=2000") }
    base = server.json("/stats?gc=1")["hwm_kib"]
    samples = Array.new(runs) do |i|
      server.json("/stats?gc=1") unless i.zero?
      server.get_digest(path).tap { |r| raise "#{path}: #{r.status}" unless r.status == 200 }
    end
    growth = (server.json("/stats")["hwm_kib"] - base) / 1024.0
    digests = samples.map(&:digest).uniq
    raise "#{label}: runs wrote different bytes" unless digests.size == 1

    Result.new(label: label, ttfb: median(samples.map(&:ttfb)), total: median(samples.map(&:total)),
               growth_mb: growth, bytes: samples.first.bytes, chunks: samples.first.chunks, digest: digests.first)
  ensure
    server&.stop
  end

  def median(values) = values.sort[values.size / 2]

  # The stock encoder's render json: and the jbuilder gem's view are the
  # references; every contender of a kind wrote their bytes.
  def check(results)
    references = { as_json: "render json: (stock encoder)", view: "jbuilder gem array! view" }
    references.each do |kind, label|
      expected = results.find { |r, _| r.label == label }.first.digest
      results.each do |result, k|
        raise "#{result.label}: its bytes differ from #{label}'s" if k == kind && result.digest != expected
      end
    end
  end

  def cpu
    info = File.read("/proc/cpuinfo").split("\n\n").first.lines.to_h { |l| l.split(":", 2).map(&:strip) }
    "#{info['model name']} (cpu family #{info['cpu family']}, model #{info['model']}; #{Etc.nprocessors} cores visible)"
  rescue SystemCallError
    "unknown"
  end

  def revision
    root = File.expand_path("..", __dir__)
    rev = `git -C #{root} rev-parse --short HEAD`.strip
    dirty = `git -C #{root} status --porcelain -- . ':!bench/results'`.strip.empty? ? "" : " (+ uncommitted changes)"
    "#{rev}#{dirty}"
  end

  def write(results, opts)
    lines = []
    lines << "# Streaming results"
    lines << ""
    lines << "`bundle exec ruby --yjit bench/streaming.rb --rows #{opts[:rows]} --runs #{opts[:runs]}` " \
             "(also `bundle exec rake bench:streaming`), #{Time.now.utc.iso8601}."
    lines << ""
    lines << "- CPU: #{cpu}"
    lines << "- Ruby: #{RUBY_DESCRIPTION}, servers with `--yjit`; puma #{Gem.loaded_specs['puma']&.version}, " \
             "Rails #{Gem.loaded_specs['railties']&.version} (its own load_defaults), jbuilder " \
             "#{Gem.loaded_specs['jbuilder']&.version}, " \
             "SQLite (sqlite3 #{Gem.loaded_specs['sqlite3']&.version}, no mmap)"
    lines << "- Revision: #{revision}"
    lines << "- #{opts[:rows]} records (#{format('%.1f', results.first.bytes / 1e6)} MB of JSON) per request, " \
             "each contender in a fresh server process; median of #{opts[:runs]} requests after two warm-up " \
             "requests of 2,000 records; peak RSS growth is the server's VmHWM after the runs minus before them."
    lines << "- Every contender's bytes equal the stock encoder's `render json:` (as_json kinds) or the jbuilder " \
             "gem's view (partial kinds); the run stops otherwise."
    lines << ""
    lines << "| contender | time to first byte | total | server peak RSS growth | body reads (Net::HTTP) |"
    lines << "|---|---:|---:|---:|---:|"
    results.each do |r|
      lines << format("| %s | %.1f ms | %.2f s | %.1f MB | %d |", r.label, r.ttfb * 1000, r.total, r.growth_mb, r.chunks)
    end
    puts lines.join("\n")
    return unless opts[:write]

    path = JetsonBench.results_path("streaming.md")
    File.write("#{path}.tmp", "#{lines.join("\n")}\n")
    File.rename("#{path}.tmp", path)
  end
end

BenchStreaming.run if $PROGRAM_NAME == __FILE__
