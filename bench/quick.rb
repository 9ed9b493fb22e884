# frozen_string_literal: true

# `rake bench`: a quick look at every use, about 10 minutes on 2 cores. Each
# benchmark runs once in a short configuration (STEPS: one boot, fewer and
# shorter rounds, fewer records, the headline cases only), one after the
# other, with YJIT, writing its results file into tmp/bench-quick/ (never
# over the committed bench/results/) and its output into
# tmp/bench-quick/NAME.log; a line every 20 s says which benchmark runs, n
# of N, and the time so far. At the end the headline table of this run is
# printed and drawn (tmp/bench-quick/headline.md, speedups.svg), read from
# those files as `rake bench:chart` reads bench/results/.
#
# Short runs are noisier than the full ones (`rake bench:full`, or each
# `rake bench:NAME`), and ratios hold for the CPU they ran on.
#
#   ruby bench/quick.rb [--only=NAME,NAME] [--out=DIR]

require "optparse"
require "fileutils"
require "rbconfig"
require "etc"

module BenchQuick
  ROOT = File.expand_path("..", __dir__)

  # name => [arguments, what it measures in this short form]
  STEPS = {
    "deploy" => [%w[--boots=1 --warmup=1 --time=1 --only=index,nested,composed,cached,render_json],
                 "the kit's app under puma, production: 1 boot per world, 1 s of wrk per endpoint"],
    "views" => [%w[--quick jetson/jbuilder],
                "Jbuilder views through the Rails stack, Jetson and the jbuilder gem: 3 rounds of 0.3 s slices"],
    "rails" => [%w[--quick], "render json: and to_json against ActiveSupport: 3 rounds"],
    "records" => [%w[--quick sqlite fresh a1 a2 a3 a4 a5 a6],
                  "ActiveRecord to_json, fresh loads, SQLite, the six shapes: 3 rounds"],
    "builder" => [%w[--quick jetson::builder panko], "Jbuilder code against the jbuilder gem and panko: 3 rounds"],
    "streaming" => [%w[--rows 20000 --runs 1], "render json_stream: 20,000 records, 1 request per contender"],
    "generate" => [%w[--quick --warmup=0.1 --time=0.2 --no-alloc small twitter.json citm_catalog.json canada.json],
                   "the generator against json and Oj: the small cases and the large documents, 3 rounds"]
  }.freeze

  module_function

  def clock = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  def elapsed(seconds) = format("%d:%02d", seconds / 60, seconds % 60)

  def main(argv)
    $stdout.sync = true # the progress lines, also into a log
    out = File.join(ROOT, "tmp", "bench-quick")
    only = nil
    OptionParser.new do |o|
      o.on("--only=NAMES", Array) { only = _1 }
      o.on("--out=DIR") { out = File.expand_path(_1) }
    end.parse!(argv)
    steps = only ? STEPS.slice(*only) : STEPS
    abort "bench/quick.rb: no benchmark named #{only.join(', ')} (#{STEPS.keys.join(', ')})" if steps.empty?

    FileUtils.mkdir_p(out)
    Dir[File.join(out, "*.md")].each { File.delete(_1) } # a step that fails leaves no earlier file behind
    t0 = clock
    puts "rake bench: a quick look at each use, #{steps.size} benchmarks one after the other (about 10 minutes " \
         "on 2 cores); results and logs in #{out.delete_prefix("#{ROOT}/")}/; the full runs: rake bench:full"
    failed = []
    steps.each_with_index do |(name, (args, what)), i|
      tag = "[#{i + 1}/#{steps.size}] #{name}"
      puts "\n#{tag} (#{elapsed(clock - t0)} so far): #{what}"
      puts "  bundle exec ruby --yjit bench/#{name}.rb #{args.join(' ')}"
      ok, seconds = run_step(name, args, out, tag, t0)
      if ok
        puts "#{tag} done in #{elapsed(seconds)}"
      else
        failed << name
        log = File.join(out, "#{name}.log")
        puts "#{tag} FAILED after #{elapsed(seconds)}; the end of #{log}:"
        File.readlines(log).last(15).each { puts "  | #{_1}" } if File.exist?(log)
      end
    end

    puts "\nAll #{steps.size} in #{elapsed(clock - t0)}#{failed.empty? ? '' : " (failed: #{failed.join(', ')})"}.\n\n"
    headline(out) if failed.empty? && only.nil?
    exit(1) unless failed.empty?
  end

  # Runs one benchmark into NAME.log, printing a progress line every 20 s
  # (the log's last line, which each benchmark keeps current).
  def run_step(name, args, out, tag, t0)
    log = File.join(out, "#{name}.log")
    env = { "JETSON_BENCH_RESULTS" => out }
    started = clock
    report_at = started + 20
    pid = Process.spawn(env, RbConfig.ruby, "--yjit", File.join(ROOT, "bench", "#{name}.rb"), *args,
                        chdir: ROOT, out: log, err: %i[child out])
    loop do
      _, status = Process.wait2(pid, Process::WNOHANG)
      return [status.success?, clock - started] if status

      sleep 1
      next if clock < report_at

      report_at += 20
      last = File.exist?(log) ? File.readlines(log).map(&:strip).reject(&:empty?).last.to_s : ""
      puts "  #{tag}, #{elapsed(clock - started)} in (#{elapsed(clock - t0)} so far): #{last[0, 100]}"
    end
  end

  def headline(out)
    require_relative "support/report"
    cpu = JetsonBench::Environment.cpu_model
    subtitle = "rake bench's quick look on #{cpu}, #{Time.now.utc.strftime('%Y-%m-%d')}: short runs, noisier " \
               "than bench/results/"
    ok = system(RbConfig.ruby, File.join(ROOT, "bench", "chart.rb"), "--results=#{out}",
                "--svg=#{File.join(out, 'speedups.svg')}", "--markdown=#{File.join(out, 'headline.md')}",
                "--subtitle=#{subtitle}")
    abort "bench/quick.rb: the headline could not be read from #{out}" unless ok
    puts "\nThe table and the chart (tmp/bench-quick/speedups.svg) are this machine's quick look (#{cpu}); the " \
         "README's come from the full runs in bench/results/ (rake bench:chart)."
  end
end

BenchQuick.main(ARGV.dup) if $PROGRAM_NAME == __FILE__
