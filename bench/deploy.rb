# frozen_string_literal: true

# Endpoints as apps deploy them: the kit's generated scaffold app
# (kit/blog.rb: `rails new --api`, scaffolds for posts and comments, 200
# posts with 5 comments each) under puma with its own config/puma.rb,
# production, Rails' default threads, once with the jbuilder gem and
# ActiveSupport's encoder, once with jetson/jbuilder and
# `config.jetson.rails_encoder = true`.
#
#   bundle exec ruby --yjit bench/deploy.rb [--boots=N] [--cluster[=WORKERS]] [--time=S] [--warmup=S]
#                                           [--only=index,nested] [--no-write] [--no-pin]
#                                           [--apm=newrelic] [--log-level=debug]
#
# Each boot of each world (worlds alternate, their order swapped every
# boot) starts puma, sends its first requests concurrently as a load
# balancer does after a deploy (6 clients at once, every endpoint), checks
# every response against the jbuilder world's bytes, warms each endpoint
# with wrk (--warmup seconds each: a process reached its steady rate
# only after some 10 s of traffic), then per endpoint (order rotated per
# boot): a GC in the server, wrk for --time seconds over as many
# connections as puma has threads, and the server's allocations per
# request. The floor (the records loaded,
# nothing written) is measured the same way in each boot. The spread
# across boots is the point: a boot that took a slow path shows as one.
# Jetson's diagnostics after each boot say whether anything stayed on Ruby's
# path once warm. Results: bench/results/deploy.md (deploy-cluster.md).
#
# --apm=newrelic boots both worlds with New Relic's agent (offline: it
# instruments and records, and sends nothing; Kit::Blog.apm_env), which
# listens to every ActionView render event; --log-level=debug sets
# production's log level (Rails' log subscriber then listens to the render
# events too). Results: deploy-newrelic.md, deploy-debug.md.

require "optparse"
require "etc"
require "time"
require_relative "../kit/puma_server"
require_relative "../kit/traffic"
require_relative "support/report"
require_relative "support/stats"
require_relative "support/table"

module BenchDeploy
  S = JetsonBench::Stats
  WORLDS = %w[jbuilder jetson].freeze
  ENDPOINTS = Kit::Blog::ENDPOINTS
  FLOOR = Kit::Blog::FLOOR
  FLOORS = Kit::Blog::FLOORS
  OWN = Kit::Blog::OWN

  Options = Struct.new(:boots, :workers, :time, :warmup, :only, :write, :pin, :apm, :log_level, keyword_init: true)

  # One world's measurements in one boot.
  Boot = Struct.new(:world, :index, :rps, :allocations, :errors, :boot_seconds, :ruby_after_warm, :fallbacks,
                    keyword_init: true)

  class Run
    def initialize(options)
      @o = options
      @endpoints = options.only ? ENDPOINTS.slice(*options.only) : ENDPOINTS
      # Each endpoint's floor loads the records it loads (Kit::Blog::FLOORS).
      @floor_of = @endpoints.to_h { |name, path| [path, FLOORS.fetch(name, FLOOR)] }
      # ... and, where the kit has one, its reference of the templates' own
      # Ruby, measured in both worlds as the floors are.
      @own_of = @endpoints.filter_map { |name, path| [path, OWN[name]] if OWN.key?(name) }.to_h
      @paths = @endpoints.values + @floor_of.values.uniq.sort_by { _1 == FLOOR ? "" : _1 } + @own_of.values
      @boots = []
      @reference = nil
      @pinned = options.pin && options.workers.zero? && Etc.nprocessors >= 2 && system("taskset", "-c", "0", "true")
    end

    def run
      abort "bench/deploy.rb needs wrk (Debian's package: apt-get install wrk)" unless Kit::Traffic.wrk?
      started = now
      puts "Endpoints under puma (kit/blog.rb) — #{settings}"
      @o.boots.times do |index|
        order = index.even? ? WORLDS : WORLDS.reverse
        order.each { |world| @boots << boot(world, index) }
      end
      puts
      report = report_text(now - started)
      puts report
      write(report) if @o.write
    end

    private

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    def threads = Kit::Blog::DEFAULT_THREADS
    def connections = threads * [@o.workers, 1].max

    # Single mode, --pin: puma on the last CPU, wrk on the others, as a
    # server whose clients are elsewhere. Unpinned, puma's threads and wrk
    # share both CPUs as the scheduler places them, and a boot's requests
    # per second varied by up to 2x from that alone (the same process
    # measured 350-950 req/s on the floor as it was moved).
    def pinned? = @pinned

    def server_cpus = pinned? ? (Etc.nprocessors - 1).to_s : nil
    def wrk_cpus = pinned? ? "0-#{Etc.nprocessors - 2}" : nil

    # The agent's environment and the log level, for both worlds alike.
    def server_env
      env = Kit::Blog.apm_env(@o.apm)
      env["RAILS_LOG_LEVEL"] = @o.log_level if @o.log_level
      env
    end

    def log_level = @o.log_level || ENV.fetch("KIT_LOG_LEVEL", "info")

    def settings
      mode = @o.workers.zero? ? "single mode" : "cluster mode, #{@o.workers} workers (preload_app!)"
      pin = pinned? ? ", puma on CPU #{server_cpus} and wrk on #{wrk_cpus}" : ", unpinned"
      "#{@o.boots} boots per world, #{mode}, #{threads} threads per process, wrk over #{connections} connections#{pin}, " \
        "#{@o.warmup} s of warm-up and #{@o.time} s measured per endpoint and boot"
    end

    def boot(world, index)
      t0 = now
      server = Kit::PumaServer.start(world: world, workers: @o.workers, cpus: server_cpus, env: server_env)
      booted = now - t0
      first = Kit::Traffic.burst(server, @endpoints.values)
      check(world, index, first)
      paths = @paths
      paths.each { |path| Kit::Traffic.wrk(server, path, connections: connections, seconds: @o.warmup, cpus: wrk_cpus) }
      ruby_after_warm, fallbacks = standing(server, world) { paths.each { server.get(_1) } }
      rps = {}
      allocations = {}
      errors = 0
      paths.rotate(index).each do |path|
        before = gc(server)
        rate, failed, requests = Kit::Traffic.wrk(server, path, connections: connections, seconds: @o.time,
                                                                 cpus: wrk_cpus)
        after = gc(server)
        rps[path] = rate
        errors += failed
        # In single mode one process served the slice: its allocations per
        # request, which the machine's speed does not move (the path a boot
        # took does).
        allocations[path] = (after - before).fdiv(requests) if @o.workers.zero? && requests.positive?
      end
      line = paths.map { |path| "#{name_of(path)} #{rps[path].round}" }.join(", ")
      puts format("  boot %2d %-8s booted in %.1f s; req/s: %s%s", index + 1, world, booted, line,
                  ruby_after_warm&.positive? ? "; #{ruby_after_warm} through Ruby once warm" : "")
      Boot.new(world: world, index: index, rps: rps, allocations: allocations, errors: errors, boot_seconds: booted,
               ruby_after_warm: ruby_after_warm, fallbacks: fallbacks)
    ensure
      server&.stop
    end

    def name_of(path)
      return "templates' own Ruby (#{@endpoints.key(@own_of.key(path))})" if @own_of.value?(path)

      floor?(path) ? "floor#{path[/\?(.*)/, 1]&.then { " (#{_1.tr('&', ' ')})" }}" : @endpoints.key(path)
    end

    def floor?(path) = !@endpoints.value?(path)

    # Every first response is a 200 with the jbuilder world's bytes.
    def check(world, index, responses)
      bad = responses.reject { |_, status, _| status == 200 }
      abort "boot #{index + 1} #{world}: #{bad.map { "#{_1[0]} #{_1[1]}" }.join(', ')}" unless bad.empty?
      bodies = responses.to_h { |path, _, body| [path, body] }
      @reference ||= bodies if world == "jbuilder"
      return unless @reference

      bodies.each do |path, body|
        next if @reference[path] == body

        abort "boot #{index + 1} #{world}: #{path} differs from the jbuilder world: " \
              "#{S.diff_summary(body, @reference[path])}"
      end
    end

    # What went through Ruby in the block's requests, once warm (Jetson's
    # diagnostics; nil for the jbuilder world).
    def standing(server, world)
      return [nil, []] unless world == "jetson"

      before = server.diagnostics_by_pid
      yield
      after = server.diagnostics_by_pid
      ruby = after.sum do |pid, d|
        %i[records values partials calls].sum { d[_1][:ruby] - before.fetch(pid, d)[_1][:ruby] }
      end
      [ruby, after.values.flat_map { _1[:fallbacks] }.map { "#{_1[:count]} #{_1[:kind]}: #{_1[:why]}" }.uniq]
    end

    def gc(server)
      JSON.parse(server.get("/kit/gc").body).fetch("allocated")
    end

    def rps_of(world, path) = @boots.select { _1.world == world }.map { _1.rps.fetch(path) }

    def report_text(elapsed)
      lines = []
      lines << "# Endpoints under puma, as apps deploy them"
      lines << ""
      lines << "`bundle exec ruby --yjit bench/deploy.rb #{ARGV.join(' ')}`".sub(/ `\z/, "`")
      lines << ""
      facts.each { |k, v| lines << "- #{k}: #{v}" }
      lines << "- Run time: #{(elapsed / 60).round(1)} min"
      lines << ""
      lines << "## Jetson against the jbuilder gem and ActiveSupport's encoder"
      lines << ""
      lines << "Requests per second, median over boots (min–max across boots). Ratio: the median of each boot's " \
               "Jetson ÷ jbuilder (paired by boot) ± half the interquartile range. Above the floor: the time per " \
               "request above the floor's (the same records loaded, nothing written), jbuilder ÷ Jetson. ÷ own Ruby: " \
               "the time above the floor ÷ the templates' own Ruby's (KitController#own: the floor plus every value " \
               "the endpoint's templates compute, nothing built) above the same floor, per boot of that world."
      lines << ""
      lines << summary.to_markdown
      lines << ""
      lines << "## Every boot"
      lines << ""
      lines << "Requests per second of each boot; a boot more than 10% below its world's best on an endpoint is marked *."
      lines << ""
      WORLDS.each do |world|
        lines << "### #{world}"
        lines << ""
        lines << per_boot(world).to_markdown
        lines << ""
      end
      lines << "## Allocations per request (the server's, single mode)"
      lines << ""
      lines << "Objects allocated per request in each boot's measured slice (median over boots, min–max): the " \
               "path a boot's requests take, which the machine's speed does not move."
      lines << ""
      lines << allocations.to_markdown
      lines << ""
      lines << "## Jetson's diagnostics once warm"
      lines << ""
      standing = @boots.select { _1.world == "jetson" }
      lines << "Records, values, partials and encodes that went through Ruby in one request per endpoint after the " \
               "warm-up, per boot: #{standing.map { _1.ruby_after_warm }.join(', ')}."
      fallbacks = standing.flat_map(&:fallbacks).uniq
      lines << ""
      lines << (fallbacks.empty? ? "No fallback counted in any boot." : "Fallbacks counted since boot (any boot):")
      fallbacks.each { lines << "- #{_1}" }
      lines.join("\n") + "\n"
    end

    def summary
      t = JetsonBench::Table.new(["endpoint", "jbuilder req/s", "Jetson req/s", "ratio", "above the floor",
                                  "Jetson boots within 10% of best", "the same, each ÷ its boot's floor",
                                  "jbuilder boots within 10% of best", "Jetson ÷ own Ruby, above the floor",
                                  "jbuilder ÷ own Ruby, above the floor"])
      @paths.each do |path|
        gem = rps_of("jbuilder", path)
        jet = rps_of("jetson", path)
        ratios = jet.zip(gem).map { |j, g| j / g }
        floor = floor?(path) ? [] : rps_of("jbuilder", @floor_of[path]).zip(rps_of("jetson", @floor_of[path]))
        above = jet.zip(gem, floor).map do |j, g, (fg, fj)|
          next unless fg

          gem_above = 1.0 / g - 1.0 / fg
          jet_above = 1.0 / j - 1.0 / fj
          jet_above.positive? && gem_above.positive? ? gem_above / jet_above : nil
        end.compact
        # The floor writes no JSON: what moves it from boot to boot is the
        # machine, so a rate relative to its boot's floor shows a boot's own
        # path without the machine's drift.
        relative = jet.zip(floor.map(&:last)).map { |j, fj| j / fj } unless floor?(path)
        t << [name_of(path), range(gem), range(jet), ratio(ratios), floor?(path) ? "-" : ratio(above),
              within_best(jet), floor?(path) ? "-" : within_best(relative), within_best(gem),
              ratio(versus_own("jetson", path)), ratio(versus_own("jbuilder", path))]
      end
      t
    end

    # Per boot of the world: the endpoint's ms above its floor ÷ the own-Ruby
    # reference's ms above the same floor (issue 61's measure; Jetson's
    # target 1.5x), both measured in that boot.
    def versus_own(world, path)
      own = @own_of[path]
      return [] unless own

      rps_of(world, path).zip(rps_of(world, own), rps_of(world, @floor_of[path])).filter_map do |e, o, f|
        reference = 1.0 / o - 1.0 / f
        (1.0 / e - 1.0 / f) / reference if reference.positive?
      end
    end

    def within_best(values) = "#{values.count { _1 >= 0.9 * values.max }} of #{values.size}"

    def range(values) = "#{S.median(values).round} (#{values.min.round}–#{values.max.round})"

    def ratio(values)
      return "-" if values.empty?

      spread = S.half_iqr(values)
      format("%.2f×%s", S.median(values), spread ? format(" ± %.2f", spread) : "")
    end

    def per_boot(world)
      paths = @paths
      t = JetsonBench::Table.new(["boot", "booted in", *paths.map { name_of(_1) }])
      best = paths.to_h { |path| [path, rps_of(world, path).max] }
      @boots.select { _1.world == world }.each do |b|
        cells = paths.map { |path| "#{b.rps[path].round}#{b.rps[path] < 0.9 * best[path] ? '*' : ''}" }
        t << [b.index + 1, format("%.1f s", b.boot_seconds), *cells]
      end
      t
    end

    def allocations
      paths = @paths
      t = JetsonBench::Table.new(["endpoint", "jbuilder", "Jetson", "Jetson's boots within 10% of its median"])
      paths.each do |path|
        per = WORLDS.to_h do |world|
          [world, @boots.select { _1.world == world }.map { _1.allocations[path] }.compact]
        end
        cells = per.values.map { |values| values.empty? ? "-" : range(values) }
        jet = per.fetch("jetson")
        within = jet.empty? ? "-" : "#{jet.count { (_1 - S.median(jet)).abs <= 0.1 * S.median(jet) }} of #{jet.size}"
        t << [name_of(path), *cells, within]
      end
      t
    end

    def facts
      env = JetsonBench::Environment
      require "rails/version"
      [["Date", Time.now.utc.iso8601], ["CPU", "#{env.cpu_model}, #{Etc.nprocessors} cores visible"],
       ["Ruby", "#{RUBY_DESCRIPTION} (puma runs with RUBY_YJIT_ENABLE=1)"],
       ["Rails", "#{::Rails::VERSION::STRING} (load_defaults of the generated app), production, log level " \
                 "#{log_level}"],
       ["Gems", %w[puma jbuilder json].map { "#{_1} #{env.gem_version(_1)}" }.join(", ")],
       ["APM agent", @o.apm ? "#{@o.apm} (newrelic_rpm #{env.gem_version('newrelic_rpm')}, offline)" : "none"],
       ["wrk", `wrk --version 2>&1`.lines.first.to_s.strip],
       ["Repo revision", env.git_revision], ["Settings", settings]]
    end

    def write(text)
      name = ["deploy", (@o.workers.zero? ? nil : "cluster"), @o.apm, (@o.log_level == "debug" ? "debug" : nil)]
             .compact.join("-") + ".md"
      path = JetsonBench.results_path(name)
      File.write(path, text)
      puts "wrote #{path}"
    end
  end

  def self.options(argv)
    o = Options.new(boots: 5, workers: 0, time: 2, warmup: 2, only: nil, write: true, pin: true, apm: nil,
                    log_level: nil)
    OptionParser.new do |op|
      op.on("--boots=N", Integer) { o.boots = _1 }
      op.on("--cluster[=WORKERS]", Integer) { o.workers = _1 || 2 }
      op.on("--time=S", Integer) { o.time = _1 }
      op.on("--warmup=S", Integer) { o.warmup = _1 }
      op.on("--only=NAMES", Array) { o.only = _1 }
      op.on("--no-write") { o.write = false }
      op.on("--no-pin") { o.pin = false }
      op.on("--apm=AGENT", %w[newrelic]) { o.apm = _1 }
      op.on("--log-level=LEVEL", %w[debug info]) { o.log_level = _1 }
    end.parse!(argv.dup)
    o
  end
end

BenchDeploy::Run.new(BenchDeploy.options(ARGV)).run if $PROGRAM_NAME == __FILE__
