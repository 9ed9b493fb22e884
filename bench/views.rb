# frozen_string_literal: true

# Jbuilder views through the whole Rails stack (Rack request, routing,
# controller, view, response body): the jbuilder gem vs Jetson
# (jetson/jbuilder) on the same .json.jbuilder files, props_template, jb,
# and `render json:` of Hashes with ActiveSupport's and Jetson's encoders,
# with floors (the same request rendering a constant String).
#
#   bundle exec ruby --yjit bench/views.rb [--quick] [--rounds=N] [--time=S] [FILTER ...]
#   bundle exec ruby --yjit bench/views.rb --server [--quick] [FILTER ...]   (puma + wrk: bench/views/server.rb)
#   ... --database=postgresql|mysql2|trilogy   (a local server instead of sqlite3 :memory:; bench/views/database.rb)
#
# Every view layer runs in a world process of its own (bench/views/world.rb:
# the jbuilder gem and jetson/jbuilder both define ::Jbuilder; props_template
# and jb patch ActionView); this process only drives them, one slice at a
# time, in rounds. See bench/README.md.

require_relative "support/setup"
require_relative "views/contenders"
require_relative "views/database"

$stdout.sync = true # progress lines, also when the output goes to a file

CALLGRIND = ARGV.find { |a| a.start_with?("--callgrind=") }&.split("=", 2)&.last
SERVER = ARGV.include?("--server")
argv = ARGV.reject { |a| a.start_with?("--callgrind=") || a == "--server" }
DATABASE, argv = BenchViews::Database.option(argv)
# --listen=debug|regex: who listens to the render events in every world
# (BenchViews.listen, bench/views/world.rb): the log level debug, or a
# subscriber to /render/; results in views-debug.md, views-regex.md.
LISTEN = argv.find { |a| a.start_with?("--listen=") }&.split("=", 2)&.last
argv = argv.reject { |a| a.start_with?("--listen=") }
ENV["JETSON_VIEWS_LISTEN"] = LISTEN
# The house defaults (0.2 s + 0.4 s slices) are short for requests of tens of
# milliseconds: 1 s slices here (0.3 s with --quick) unless --time= or
# JETSON_BENCH_TIME says otherwise. --server: runs of ≈ 1.5 s (0.6 s) after 1 s
# (0.3 s) of warmup, 3 rounds (2).
quick = argv.include?("--quick")
env = if SERVER
        { "JETSON_BENCH_TIME" => quick ? "0.6" : "1.5", "JETSON_BENCH_WARMUP" => quick ? "0.3" : "1.0",
          "JETSON_BENCH_ROUNDS" => quick ? "2" : "3" }
      else
        { "JETSON_BENCH_TIME" => quick ? "0.3" : "1.0", "JETSON_BENCH_WARMUP" => quick ? "0.1" : "0.2" }
      end
ENV.each { |k, v| env[k] = v unless v.strip.empty? }
options = JetsonBench::Options.parse(argv, env)
# --oj: every world's app calls Oj.optimize_rails in an initializer, as apps
# that keep Oj do (kit/rails_app.rb); "stock" is then the encoder each app
# has after booting: Oj's, or Jetson::OjEncoder (Oj's bytes) where
# jetson/jbuilder takes its place.
ENV["JETSON_VIEWS_OJ"] = options.oj? ? "1" : nil

if options.help?
  puts <<~TXT
    usage: bundle exec ruby --yjit bench/views.rb [--quick] [--rounds=N] [--time=S] [--warmup=S] [--verbose]
                                                  [--no-alloc] [--no-write] [--list] [--callgrind=ENDPOINT:LABEL[:N]] [FILTER ...]
      --quick        3 rounds of 0.1 s warmup + 0.3 s per slice (default: 9 rounds, 0.2 s + 1.0 s)
      --rounds=N     rounds; every round times every contender of every endpoint once, one slice each,
                     worlds and contenders in an order rotated from round to round
      --time=S       seconds per timed slice; --warmup=S: untimed requests before each slice
      --verbose      print every slice
      --no-alloc     skip the objects-per-request counts
      --no-write     do not write bench/results/views.md
      --oj           every world's app calls Oj.optimize_rails (bench/results/views-oj.md)
      --listen=MODE  debug: every world's log level debug (its log subscribers listen); regex: a
                     subscriber to /render/ in every world (bench/results/views-debug.md, views-regex.md)
      --list         list endpoints and contenders
      --callgrind=ENDPOINT:LABEL[:N]
                     instead of timing: the first contender whose label contains LABEL, N requests
                     (default 5) of ENDPOINT in its world under valgrind --tool=callgrind (no JIT),
                     minus 0 requests: instructions per request
      FILTER         endpoint names (index, nested, cached, app) and/or substrings of contender labels;
                     the jbuilder gem and the floor always run
      --database=NAME  postgresql, mysql2 or trilogy: the worlds' records in a server of their own (started
                     here, on 127.0.0.1) instead of sqlite3 :memory:; results go to views-NAME.md
                     (views-server-NAME.md with --server)
      --server       instead: every world under puma (1 and 2 threads) on 127.0.0.1, wrk as the load:
                     req/s, p50/p99 latency, beside the same servers' Rack-level req/s
                     (bench/results/views-server.md); with --server, --time=S is
                     the length of a run (default 1.5, 0.6 with --quick), --warmup=S the unrecorded
                     requests per contender before the rounds (1.0, 0.3), rounds 3 (2 with --quick)
    env: JETSON_BENCH_WARMUP, JETSON_BENCH_TIME (seconds), JETSON_BENCH_ROUNDS
  TXT
  exit
end

include BenchViews # rubocop:disable Style/MixinUsage -- a script
F = JetsonBench::Format
S = JetsonBench::Stats

if options.list
  ENDPOINTS.each { |name, what| puts "endpoint #{name}: #{what}" }
  CONTENDERS.each { |c| puts "#{c.label}  [world #{c.world}, #{c.role}]#{c.skip ? " (no #{c.skip.keys.join(', ')})" : ''}" }
  exit
end

# Filters: endpoint names select endpoints; anything else selects contenders
# by label (the reference and the constant floor always run).
endpoint_filters, label_filters = options.filters.partition { |f| ENDPOINTS.key?(f) }
label_filters.each do |f|
  abort "no endpoint or contender matches #{f.inspect} (--list)" unless CONTENDERS.any? { |c| c.label.downcase.include?(f) }
end
endpoints = endpoint_filters.empty? ? ENDPOINTS.keys : ENDPOINTS.keys & endpoint_filters
chosen = CONTENDERS.select do |c|
  label_filters.empty? || [GEM, FLOOR].include?(c.label) || label_filters.any? { |f| c.label.downcase.include?(f) }
end
# ... and whatever a chosen one is checked against.
contenders = CONTENDERS.select { |c| chosen.include?(c) || chosen.any? { |x| x.check.is_a?(Array) && x.check.last == c.label } }
if options.oj?
  # render json: passes escape: false under 8.1's defaults, which Oj ignores
  # and ActiveSupport's encoders (Jetson's too) honour: these two write other
  # bytes for <, > and & (the takeover's boot notice lists that difference).
  contenders = contenders.map do |c|
    next c unless c.check == [:bytes, HASHES_STOCK]

    c.dup.tap do |x|
      x.check = :parsed
      x.note = "#{c.note}; --oj: compared after JSON.parse, as Oj ignores render json:'s escape: false"
    end
  end
end
yjit = JetsonBench::Environment.yjit?
T0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
# Before any world starts: the worlds read the database's URL from ENV.
DATABASE_INFO = BenchViews::Database.prepare(DATABASE)

require_relative "views/callgrind" if CALLGRIND
if CALLGRIND
  BenchViews::Callgrind.run(CALLGRIND, contenders)
  exit
end
if SERVER
  require_relative "views/server"
  command = "bundle exec ruby #{yjit ? '--yjit ' : ''}bench/views.rb #{ARGV.join(' ')}".strip
  BenchViews::ServerBench.new(options, contenders, endpoints, yjit: yjit, command: command).run
  exit
end

# ---------------------------------------------------------------------------
# Worlds: booted together (nothing is timed yet), then driven one at a time.

worlds = contenders.map(&:world).uniq.to_h { |name| [name, WorldProcess.new(name, yjit: yjit)] }
at_exit { worlds.each_value(&:close) }
worlds.each_value(&:wait_ready)
worlds.each_value do |w|
  abort "world #{w.name}: YJIT is #{w.info[:yjit] ? 'on' : 'off'}, this process's is #{yjit ? 'on' : 'off'}" if w.info[:yjit] != yjit
  origin = w.info[:jbuilder_template]
  case w.name
  when "jbuilder" then abort "world jbuilder: JbuilderTemplate from #{origin}" unless origin&.include?("/jbuilder-")
  when "jetson" then abort "world jetson: JbuilderTemplate from #{origin}" unless origin&.include?("/lib/jetson/")
  end
end
slice = ->(c, endpoint, warmup, time) { worlds[c.world].call(:time, c.path(endpoint), c.encoder, warmup, time) }

puts "Jbuilder views through the Rails stack — #{options.describe}"
facts = JetsonBench::Environment.facts(options).reject { |k, _| %w[oj benchmark-ips memory_profiler].include?(k) }
gems = worlds["jbuilder"]&.info&.fetch(:gems) || {}
facts.insert(4, ["Rails", "actionpack #{JetsonBench::Environment.gem_version('actionpack')}, activerecord " \
                          "#{JetsonBench::Environment.gem_version('activerecord')}"],
             ["Database", DATABASE == "sqlite3" ? "sqlite3 #{gems['sqlite3']} (:memory:)" : DATABASE_INFO],
             ["View layers", "jbuilder #{gems['jbuilder']}, props_template #{JetsonBench::Environment.gem_version('props_template')} " \
                             "(oj #{JetsonBench::Environment.gem_version('oj')}), jb #{JetsonBench::Environment.gem_version('jb')}"],
             ["Worlds", worlds.values.map { |w| "#{w.name} (pid #{w.info[:pid]}, YJIT #{w.info[:yjit] ? 'on' : 'off'})" }.join(", ")],
             ["Encoders after boot (\"stock\")", worlds.values.map { |w| "#{w.name}: #{w.info[:booted_encoder]}" }.join(", ")])
facts << ["Oj.optimize_rails", "called by every world's app in an initializer (--oj)"] if options.oj?
if LISTEN && LISTEN != "info"
  facts << ["Listening (--listen=#{LISTEN})",
            LISTEN == "debug" ? "every world's log level is debug (a Logger on File::NULL): the log subscribers listen and format" \
                              : "every world has one subscriber to /render/ (a block doing nothing), as APM agents subscribe"]
end
facts.each { |k, v| puts "  #{k}: #{v}" }

# ---------------------------------------------------------------------------
# Checks, before any timing: status, Content-Type, body against the
# reference, SQL per request, and for the cached endpoint a warm cache.

checks = Hash.new { |h, k| h[k] = {} } # endpoint => label => result
notes = []
endpoints.each do |endpoint|
  puts
  puts "== #{endpoint}: #{ENDPOINTS[endpoint]}"
  bodies = {}
  contenders.select { |c| c.runs?(endpoint) }.each do |c|
    world = worlds[c.world]
    r = world.call(:check, c.path(endpoint), c.encoder)
    if endpoint == "cached" && (!c.floor? || c.kind == :reads)
      cold = r
      r = world.call(:check, c.path(endpoint), c.encoder) # the warm request: the one timed
      r[:cold_writes] = cold[:cache][:writes]
      abort "#{c.label}: the cold and warm cached responses differ: #{S.diff_summary(r[:body], cold[:body])}" if r[:body].b != cold[:body].b
    end
    bodies[c.label] = r[:body]
    reference = bodies.fetch(GEM)
    # The floors render the reference body (the gem is checked first).
    worlds.each_value { |w| w.call(:floor_body, endpoint, reference) } if c.label == GEM
    r[:output] = if c.check == :reference
                   "reference"
                 elsif c.check.is_a?(Array)
                   against = c.check.last
                   expected = bodies.fetch(against)
                   unless r[:body].b == expected.b
                     abort "MISMATCH: #{c.label} (#{endpoint}) is not byte-identical to #{against}: " \
                           "#{S.diff_summary(r[:body], expected)}"
                   end
                   against == GEM ? "identical" : "identical to #{against}"
                 elsif r[:body].b == reference.b
                   "identical"
                 elsif (JSON.parse(r[:body]) rescue :unparseable) == JSON.parse(reference) # rubocop:disable Style/RescueModifier
                   notes << "#{c.label} (#{endpoint}): equal to the jbuilder gem's after JSON.parse; bytes differ: " \
                            "#{S.diff_summary(r[:body], reference)}"
                   "equal after parse"
                 else
                   warn "WARNING: #{c.label} (#{endpoint}) differs from the jbuilder gem's after JSON.parse: " \
                        "#{S.diff_summary(r[:body], reference)}"
                   "MISMATCH"
                 end
    cache = r[:cache]
    cache_text = if endpoint == "cached" && (!c.floor? || c.kind == :reads)
                   "cache: cold request wrote #{r[:cold_writes]}, warm request read #{cache[:reads]}, " \
                     "hit #{cache[:hits]}, wrote #{cache[:writes]}"
                 end
    puts "  #{c.label} [#{c.world}]: #{r[:status]} #{r[:content_type]}, #{r[:body].bytesize} bytes, " \
         "#{r[:sql]} SQL, #{r[:output]}#{cache_text ? "; #{cache_text}" : ''}"
    abort "#{c.label} (#{endpoint}): status #{r[:status]}" unless r[:status] == 200
    abort "#{c.label} (#{endpoint}): Content-Type #{r[:content_type]}" unless r[:content_type] == "application/json; charset=utf-8"
    if cache_text && (cache[:writes] != 0 || cache[:hits] < 100)
      warn "WARNING: #{c.label} (cached): the warm request is not all hits (#{cache_text})"
      r[:output] += " (cache not warm)"
    end
    gem_sql = checks[endpoint][GEM]&.fetch(:sql)
    notes << "#{c.label} (#{endpoint}): #{r[:sql]} SQL queries per request, the jbuilder gem's view #{gem_sql}" if gem_sql && r[:sql] != gem_sql
    checks[endpoint][c.label] = r.except(:body).merge(bytes: r[:body].bytesize)
  end
end

# ---------------------------------------------------------------------------
# Warmup (YJIT compiles what a contender runs), then the rounds.

jobs = endpoints.flat_map { |e| contenders.select { |c| c.runs?(e) }.map { |c| [e, c] } }
initial = options.quick ? 0.3 : 1.5
puts
puts "warming up: #{initial} s of requests per contender and endpoint"
jobs.each { |e, c| slice.call(c, e, 0, initial) }
puts "checks and warmup done after #{format('%.0f', Process.clock_gettime(Process::CLOCK_MONOTONIC) - T0)} s"

rounds = Hash.new { |h, k| h[k] = Hash.new { |h2, k2| h2[k2] = [] } } # endpoint => label => [req/s per round]
world_names = worlds.keys
options.rounds.times do |round|
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  endpoints.each do |endpoint|
    world_names.rotate(round).each do |world|
      contenders.select { |c| c.world == world && c.runs?(endpoint) }.rotate(round).each do |c|
        n, elapsed = slice.call(c, endpoint, options.warmup, options.time)
        rounds[endpoint][c.label][round] = n / elapsed
        puts "    #{endpoint} #{c.label}: #{F.ips(n / elapsed)} req/s (#{n} requests in #{format('%.2f', elapsed)} s)" if options.verbose
      end
    end
  end
  puts "round #{round + 1}/#{options.rounds}: #{format('%.1f', Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)} s"
end

allocs = Hash.new { |h, k| h[k] = {} }
if options.alloc
  jobs.each do |e, c|
    ips = S.median(rounds[e][c.label])
    n = ((options.quick ? 0.1 : 0.3) * ips).round.clamp(3, 300)
    allocs[e][c.label] = worlds[c.world].call(:alloc, c.path(e), c.encoder, n)
  end
end
puts "done after #{format('%.0f', Process.clock_gettime(Process::CLOCK_MONOTONIC) - T0)} s"

# ---------------------------------------------------------------------------
# Report. Per round, per endpoint: ratio = contender req/s ÷ the jbuilder
# gem's; view time = ms per request − the constant floor's ms (jbuilder
# world), and the gem's view time ÷ the contender's. Medians over rounds,
# with the smallest and largest round.

def per_round(a, b)
  Array(a).zip(Array(b)).filter_map { |x, y| yield(x, y) if x && y }
end

def spread(values, unit: "×")
  return "-" if values.empty?

  # Truncated, as in the other benches (1.20× means at least 1.20); min and max too, so that they bracket it.
  shown = [S.median(values), values.min, values.max].map { |v| (v * 100).floor / 100.0 }
  format("%.2f%s (%.2f–%.2f)", shown[0], unit, shown[1], shown[2])
end

ms = ->(ips) { 1000.0 / ips }
tables = {}
summary = JetsonBench::Table.new(["contender", *endpoints.flat_map { |e| ["#{e} req/s", "#{e} ÷ gem"] }])
endpoints.each do |endpoint|
  gem = rounds[endpoint][GEM]
  floor = rounds[endpoint][FLOOR]
  t = JetsonBench::Table.new(["contender", "world", "req/s", "±", "ms/req", "ms above floor", "÷ gem (min–max)",
                              "view time: gem's ÷ this (min–max)", "objs/req", "SQL", "output"])
  contenders.each do |c|
    unless c.runs?(endpoint)
      t << [c.label, c.world, "n/a", "", "", "", "", "", "", "", "n/a: #{c.skip[endpoint]}"]
      next
    end
    r = rounds[endpoint][c.label]
    median = S.median(r)
    above = per_round(r, floor) { |x, f| ms.call(x) - ms.call(f) }
    view = per_round(r.zip(floor), gem) do |(x, f), g|
      next nil unless x && f
      mine = ms.call(x) - ms.call(f)
      mine.positive? ? (ms.call(g) - ms.call(f)) / mine : nil
    end
    half = S.half_iqr(r)
    t << [c.label, c.world, F.ips(median), half ? F.percent(100.0 * half / median) : "-", format("%.2f", ms.call(median)),
          c.label == FLOOR ? "0" : format("%.2f", S.median(above)),
          c.label == GEM ? "1" : spread(per_round(r, gem) { |x, g| x / g }),
          c.floor? ? "" : c.label == GEM ? "1" : spread(view.compact),
          F.objects(allocs[endpoint][c.label]), checks[endpoint][c.label][:sql].to_s, checks[endpoint][c.label][:output]]
  end
  tables[endpoint] = t
end
contenders.each do |c|
  summary << [c.label, *endpoints.flat_map do |e|
    next ["n/a", ""] unless c.runs?(e)

    r = rounds[e][c.label]
    [F.ips(S.median(r)), c.label == GEM ? "1" : spread(per_round(r, rounds[e][GEM]) { |x, g| x / g })]
  end]
end

# The views issue's bars, each per round (paired): Jetson ÷ the gem against
# 3×/4.5×/3× (moonshot 4×/6×/4×), Jetson against render json: of Hashes
# through Jetson::RailsEncoder and against the reads floor (must be ≥ 1),
# and the floors' own ÷ gem: a floor below a bar makes that bar unreachable
# for any view layer that pays it.
BARS = { "index" => [3.0, 4.0], "nested" => [4.5, 6.0], "cached" => [3.0, 4.0] }.freeze
JETSON = "Jetson (jetson/jbuilder)"
bars = JetsonBench::Table.new(["endpoint", "Jetson ÷ gem", "bar (moonshot)", "met", "Jetson ÷ Hashes via Jetson",
                               "Jetson ÷ reads floor", "Jetson ÷ post_url+associations floor",
                               "post_url+associations floor ÷ gem", "Jetson ÷ templates floor", "templates floor ÷ gem",
                               "reads floor ÷ gem"])
endpoints.each do |e|
  r = rounds[e]
  next unless r.key?(JETSON) && r.key?(GEM)

  vs = ->(label) { r.key?(label) && !r[label].empty? ? spread(per_round(r[JETSON], r[label]) { |x, y| x / y }) : "-" }
  floor_vs_gem = ->(label) { r.key?(label) && !r[label].empty? ? spread(per_round(r[label], r[GEM]) { |x, y| x / y }) : "n/a" }
  ratio = S.median(per_round(r[JETSON], r[GEM]) { |x, y| x / y })
  next unless BARS.key?(e) # app: the issue-61 table below

  bar, moon = BARS.fetch(e)
  bars << [e, vs.call(GEM), format("%.1f× (%.0f×)", bar, moon), ratio >= moon ? "moonshot" : ratio >= bar ? "yes" : "no",
           vs.call("render json: Hashes, Jetson::RailsEncoder"), vs.call("floor: reads + constant String"),
           r.key?(URLS_FLOOR) ? vs.call(URLS_FLOOR) : "n/a", floor_vs_gem.call(URLS_FLOOR),
           r.key?(TEMPLATES_FLOOR) ? vs.call(TEMPLATES_FLOOR) : "n/a", floor_vs_gem.call(TEMPLATES_FLOOR),
           floor_vs_gem.call("floor: reads + constant String")]
end

# Issue 61: the view layer's time above the constant floor as a multiple of
# the templates' own Ruby above it (OwnController: every value the
# templates compute, computed in the action, nothing built), per round;
# target ≤ 1.5× for Jetson.
OWN_TARGET = 1.5
own_table = JetsonBench::Table.new(["endpoint", "templates' own Ruby: ms above floor", "Jetson: ms above floor",
                                    "Jetson ÷ own Ruby, above floor (min–max)", "target", "met",
                                    "gem: ms above floor", "gem ÷ own Ruby, above floor (min–max)",
                                    "templates floor ÷ own Ruby, above floor (min–max)",
                                    "own Ruby + events: ms above floor", "Jetson ÷ own Ruby + events (min–max)",
                                    "gem ÷ own Ruby + events (min–max)"])
endpoints.each do |e|
  r = rounds[e]
  next unless r.key?(OWN) && !r[OWN].empty?

  floor = r[FLOOR]
  above = ->(label) { per_round(r[label], floor) { |x, f| ms.call(x) - ms.call(f) } }
  own = above.call(OWN)
  own_events = r.key?(OWN_EVENTS) && !r[OWN_EVENTS].empty? ? above.call(OWN_EVENTS) : nil
  versus = lambda do |label, reference = own|
    next "-" unless reference && r.key?(label) && !r[label].empty?

    values = per_round(above.call(label), reference) { |x, o| o.positive? ? x / o : nil }
    counted = values.size < own.size ? " (#{values.size}/#{own.size} rounds)" : ""
    values.empty? ? "-" : "#{spread(values)}#{counted}"
  end
  jetson = per_round(above.call(JETSON), own) { |x, o| o.positive? ? x / o : nil }
  met = jetson.empty? ? "-" : S.median(jetson) <= OWN_TARGET ? "yes" : "no"
  median_ms = ->(label) { r.key?(label) && !r[label].empty? ? format("%.2f", S.median(above.call(label))) : "-" }
  own_table << [e, median_ms.call(OWN), median_ms.call(JETSON), versus.call(JETSON), format("≤ %.1f×", OWN_TARGET), met,
                median_ms.call(GEM), versus.call(GEM), versus.call(TEMPLATES_FLOOR), median_ms.call(OWN_EVENTS),
                versus.call(JETSON, own_events), versus.call(GEM, own_events)]
end

# A warm cached collection's cost per element (issue 34, item 6): ms per
# request above the constant floor of the same world, ÷ the elements, per
# round, for each view layer and for the store's own read_multi of the same
# entries (the least any of them can pay).
cached_elements = JetsonBench::Table.new(["contender", "µs per element above its world's constant floor (min–max)",
                                          "÷ the store's read_multi (min–max)"])
if endpoints.include?("cached") && rounds["cached"].key?(STORE_FLOOR)
  r = rounds["cached"]
  elements = checks["cached"][GEM][:cache][:hits] # the warm request's, checked above: every element a hit
  floor_of = { "jbuilder" => FLOOR, "jetson" => "floor: constant String (jetson world)" }
  per_element = lambda do |c|
    per_round(r[c.label], r[floor_of.fetch(c.world)]) { |x, f| (ms.call(x) - ms.call(f)) * 1000.0 / elements }
  end
  store = per_element.call(contenders.find { |c| c.label == STORE_FLOOR })
  contenders.each do |c|
    next unless c.runs?("cached") && floor_of.key?(c.world) && !floor_of.value?(c.label) && r.key?(c.label)
    next unless c.role != :floor || c.label == STORE_FLOOR || c.kind == :reads

    mine = per_element.call(c)
    cached_elements << [c.label, spread(mine, unit: ""),
                        c.label == STORE_FLOOR ? "1" : spread(per_round(mine, store) { |x, y| y.positive? ? x / y : nil })]
  end
end

explain = [
  "req/s: requests per second through the Rails app (Rack env → middleware → routing → controller → view → body " \
  "iterated), the median over #{options.rounds} rounds; ±: half the interquartile range of the rounds.",
  "÷ gem: req/s ÷ the jbuilder gem's req/s in the same round; the median of the per-round ratios and, in " \
  "brackets, the smallest and the largest (all truncated to two decimals).",
  "ms above floor: ms/request − the constant floor's ms/request (same round, jbuilder world): the time in the view " \
  "and whatever it alone causes. view time: the gem's ms above floor ÷ this contender's, per round (median, min–max).",
  "objs/req: GC.stat(:total_allocated_objects) delta per request over N requests (N ≈ #{options.quick ? 0.1 : 0.3} s " \
  "of requests), in the contender's world; includes the Rack env and everything Rails allocates.",
  "SQL: queries during one request (sql.active_record). output: the response body against the jbuilder gem's " \
  "(Jetson's must be byte-identical, else the run aborts; others compared after JSON.parse).",
  "Every world is a process of its own booted from kit/views_app.rb: one view layer each (jbuilder, jetson, props, " \
  "jb), the same configuration (production-like: eager_load, cache_classes, logger at :info, :memory_store, " \
  "perform_caching) and the same 100 posts × (author, 10 comments with authors) in #{DATABASE_INFO}. Slices run " \
  "one at a time (GC.start before each warmup and each timed slice); the order of worlds and contenders rotates " \
  "every round."
]
contender_notes = contenders.map { |c| "#{c.label}: #{c.note}" if c.note }.compact
# The worlds should differ only in their view layer: the jetson world's
# floors against the jbuilder world's, paired by round.
world_check = endpoints.flat_map do |e|
  [[FLOOR, "floor: constant String (jetson world)"], ["floor: reads + constant String", "floor: reads + constant String (jetson world)"]]
    .filter_map do |a, b|
      next unless contenders.any? { |c| c.label == b && c.runs?(e) }

      "#{e} #{a.delete_prefix('floor: ')} #{spread(per_round(rounds[e][b], rounds[e][a]) { |x, y| x / y })}"
    end
end
unless world_check.empty?
  notes << "World check, jetson world's floor req/s ÷ the jbuilder world's (per round; about 1 when the worlds are " \
           "alike): #{world_check.join('; ')}"
end
endpoint_lines = endpoints.to_h do |e|
  statuses = checks[e].values.map { |r| "#{r[:status]} #{r[:content_type]}" }.uniq
  [e, "Reference body (the jbuilder gem's): #{checks[e][GEM][:bytes]} bytes. Status and Content-Type of every " \
      "response (checked): #{statuses.join(', ')}." +
      (e == "cached" ? " Cache (checked before timing): every contender's cold request wrote 100 entries, its warm " \
                       "request read 100 hits and wrote nothing; only warm requests are timed." : "")]
end

puts
puts "=" * 78
puts "Summary (req/s; ÷ gem = median of per-round ratios to the jbuilder gem, min–max in brackets)"
puts summary.to_console
puts
puts "Bars (per-round ratios, median and min–max):"
puts bars.to_console
unless own_table.rows.empty?
  puts
  puts "The view layer against the templates' own Ruby (issue 61; per round, above the constant floor):"
  puts own_table.to_console
end
unless cached_elements.rows.empty?
  puts
  puts "Warm cached collection, µs per element above the world's constant floor:"
  puts cached_elements.to_console
end
endpoints.each do |e|
  puts
  puts "#{e}: #{ENDPOINTS[e]}"
  puts "  #{endpoint_lines[e]}"
  puts tables[e].to_console(indent: "  ")
end
puts
(explain + contender_notes + notes).each { |n| puts "- #{n}" }

if options.write
  name = DATABASE == "sqlite3" ? "views" : "views-#{DATABASE}"
  name += "-oj" if options.oj?
  name += "-#{LISTEN}" if LISTEN && LISTEN != "info"
  path = JetsonBench.results_path("#{name}.md")
  command = "bundle exec ruby #{yjit ? '--yjit ' : ''}bench/views.rb #{ARGV.join(' ')}".strip
  md = +"# Jbuilder views through the Rails stack\n\nCommand: `#{command}`\n\n"
  facts.each { |k, v| md << "- **#{k}**: #{v}\n" }
  md << "\n## Summary\n\n#{summary.to_markdown}\n\n"
  md << "## Bars\n\n#{bars.to_markdown}\n\n"
  unless own_table.rows.empty?
    md << "## The view layer against the templates' own Ruby\n\nPer round: (ms/request − the constant floor's) " \
          "÷ (the own-Ruby reference's ms/request − the constant floor's); the median and, in brackets, the " \
          "smallest and the largest round (issue 61: Jetson's target ≤ #{OWN_TARGET}×). The last three columns take " \
          "as reference the own Ruby plus the render events the page owes its listeners (#{OWN_EVENTS}).\n\n" \
          "#{own_table.to_markdown}\n\n"
  end
  unless cached_elements.rows.empty?
    md << "## Warm cached collection, per element\n\n#{cached_elements.to_markdown}\n\n"
  end
  endpoints.each { |e| md << "## #{e}\n\n#{ENDPOINTS[e]}\n\n#{endpoint_lines[e]}\n\n#{tables[e].to_markdown}\n\n" }
  md << "## Notes\n\n"
  (explain + contender_notes + notes).each { |n| md << "- #{n}\n" }
  tmp = "#{path}.tmp"
  File.write(tmp, md)
  File.rename(tmp, path)
  puts "\nwrote #{path}"
end
