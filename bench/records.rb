# frozen_string_literal: true

# ActiveRecord as apps pass it, through JSON encoders and serializers, with
# fresh loads: on SQLite (a database file) and on PostgreSQL (a server of its
# own, kit/database_servers.rb), the collection of the serializer
# projects' benchmark (100 posts, 2 users and 20 comments each).
#
#   bundle exec ruby --yjit bench/records.rb [--quick] [--rounds=N] [--time=S] [FILTER ...]
#
# A: Rails-mode shapes, ActiveSupport's stock encoder vs Jetson::RailsEncoder
#    through to_json. B: the collection as Jbuilder code (the jbuilder gem vs
#    jetson/jbuilder), panko, alba, blueprinter and to_json. Every case twice:
#    "fresh" (each call loads the records, then encodes) and "loaded" (the
#    records loaded, and read, once before timing). The load floor (the same
#    records loaded, nothing read) runs in the same rounds, and every
#    contender's time above it is reported. Contenders run in world processes
#    (bench/records/world.rb; the jbuilder gem and jetson/jbuilder both define
#    ::Jbuilder), one slice at a time, in rounds. See bench/README.md.

# --oj: the worlds call Oj.optimize_rails; A's shapes only, Oj's encoder
# against Jetson::OjEncoder (bench/records/cases.rb reads the variable).
ENV["JETSON_BENCH_OJ"] = "1" if ARGV.include?("--oj")
require_relative "support/setup"
require_relative "../kit/database_servers"
require_relative "records/cases"
require_relative "records/driver"
require_relative "records/report"
require "tmpdir"
require "fileutils"

$stdout.sync = true
T0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)

# A call takes 2 to 75 ms: slices of 0.5 s (0.2 s with --quick) and 7 rounds
# (3) keep the full run near 12 minutes (--quick: under 3) for 54 contenders
# on each of the 2 databases.
quick = ARGV.include?("--quick")
env = { "JETSON_BENCH_TIME" => quick ? "0.2" : "0.5", "JETSON_BENCH_WARMUP" => quick ? "0.03" : "0.2",
        "JETSON_BENCH_ROUNDS" => quick ? "3" : "7" }
ENV.each { |k, v| env[k] = v unless v.strip.empty? }
options = JetsonBench::Options.parse(ARGV, env)
DATABASES = { "sqlite3" => %w[sqlite sqlite3], "postgresql" => %w[pg postgres postgresql] }.freeze

if options.help?
  puts <<~TXT
    usage: bundle exec ruby --yjit bench/records.rb [--quick] [--rounds=N] [--time=S] [--warmup=S] [--verbose]
                                                    [--no-alloc] [--no-write] [--list] [--callgrind[=N]] [FILTER ...]
      --quick      3 rounds, slices of 0.03 s warmup + 0.2 s (default: 7 rounds, 0.2 s + 0.5 s)
      --rounds=N   rounds; a round times every contender of every case once, worlds and contenders
                   in an order rotated from round to round
      --verbose    print every slice;  --no-alloc: no objects/call;  --no-write: no bench/results/records.md
      --oj         the app called Oj.optimize_rails: A's shapes (and A7, A8) with Oj::Rails::Encoder against
                   Jetson::OjEncoder; written to bench/results/records-oj.md
      --callgrind[=N]  instead of timing: instructions per call of every selected contender, N calls
                   (default 3) in each world under valgrind --tool=callgrind (no JIT); written to
                   bench/results/records-callgrind.md
      FILTER       databases (sqlite, pg), modes (fresh, loaded), case ids (a1 .. a6, b) or words of case
                   titles; OR within a kind, AND across kinds
    env: JETSON_BENCH_WARMUP, JETSON_BENCH_TIME (seconds), JETSON_BENCH_ROUNDS
  TXT
  exit
end

all_cases = RecordsBench.cases
all_cases = all_cases.select { |k| k.group == "A" } if options.oj?
if options.list
  all_cases.each { |k| puts "#{k.name}: #{k.title}\n  #{k.contenders.map { |c| "#{c.label} [#{c.world}]" }.join(', ')}" }
  exit
end

db_filters = options.filters.select { |f| DATABASES.values.flatten.include?(f) }
mode_filters = options.filters & %w[fresh loaded]
case_filters = options.filters - db_filters - mode_filters
databases = DATABASES.select { |_, names| db_filters.empty? || (names & db_filters).any? }.keys
cases = all_cases.select do |k|
  (mode_filters.empty? || mode_filters.include?(k.mode.to_s)) &&
    (case_filters.empty? || case_filters.any? { |f| k.id.downcase == f || k.title.downcase.include?(f) })
end
abort "no case matches #{options.filters.inspect} (--list)" if cases.empty?
yjit = JetsonBench::Environment.yjit?

facts = JetsonBench::Environment.facts(options).reject { |k, _| %w[benchmark-ips memory_profiler].include?(k) }
facts.map! { |k, v| k == "CPU" ? [k, RecordsBench::Report.cpu] : [k, v] }
puts "ActiveRecord through encoders and serializers, fresh loads — #{options.describe}"
facts.each { |k, v| puts "  #{k}: #{v}" }

# ---------------------------------------------------------------------------
# One database at a time: its worlds booted (the jetson world writes the
# rows, then the jbuilder world connects to them), checked, timed, closed.

tmp = Dir.mktmpdir("jetson-bench-records-")
worlds = {}
at_exit do # before Kit::DatabaseServers' own handler (at_exit runs in reverse): worlds disconnect first
  worlds.each_value(&:close)
  FileUtils.rm_rf(tmp)
end

if options.callgrind
  # A bare --callgrind: 3 calls (a fresh stock call is seconds under valgrind).
  require_relative "records/callgrind"
  RecordsBench::Callgrind.main(options, ARGV.include?("--callgrind") ? 3 : options.callgrind, databases, cases, facts, tmp)
  exit
end

runs = []
skipped = []
databases.each do |db|
  config = if db == "sqlite3"
             { adapter: "sqlite3", database: File.join(tmp, "records.sqlite3") }
           else
             Kit::DatabaseServers.available(:postgresql) || begin
               skipped << "postgresql: #{Kit::DatabaseServers.reason(:postgresql)}"
               puts "\npostgresql unavailable, SQLite only: #{Kit::DatabaseServers.reason(:postgresql)}"
               next
             end
           end
  puts
  puts "=" * 78
  puts "== #{db}"
  names = cases.flat_map { |k| k.contenders.map(&:world) }.uniq.sort_by { |w| w == "jetson" ? 0 : 1 }
  names.each do |name|
    worlds[name] = RecordsBench::WorldProcess.new(name, config, yjit: yjit)
    counts = worlds[name].call(names.first == name ? :seed : :counts)
    info = worlds[name].load_info
    abort "world #{name}: YJIT #{info[:yjit] ? 'on' : 'off'}, this process's #{yjit ? 'on' : 'off'}" if info[:yjit] != yjit
    puts "  world #{name} (pid #{info[:pid]}): #{info[:adapter]} #{info[:server]}, Jbuilder = #{info[:jbuilder]}, " \
         "rows #{counts.map { |t, n| "#{t} #{n}" }.join(', ')}"
  end
  run = RecordsBench::Driver.new(db, worlds, cases, options).run
  worlds.each_value(&:close)
  worlds.clear
  runs << run
  report = RecordsBench::Report.new(run)
  puts
  puts "#{db}: A, Rails-mode shapes (ms per call; ratios paired by round, median ± half IQR)"
  puts report.a_table.to_console(indent: "  ") if cases.any? { |k| k.group == "A" }
  if report.b_cases.any?
    puts
    puts "#{db}: B, the collection through Jbuilder code, serializers and to_json"
    puts report.b_pairs_table.to_console(indent: "  ")
    report.b_cases.each { |k| puts "\n  B #{k.mode}:\n#{report.b_table(k).to_console(indent: '  ')}" }
    puts "  #{report.world_check}" if report.world_check
  end
  puts "  (#{db}: #{format('%.0f', run.seconds)} s)"
end
abort "no database could run" if runs.empty?

# The same rows on both databases: the same bytes expected.
notes = []
if runs.size == 2
  same, differ = runs[0].references.keys.partition { |n| runs[1].references[n]&.b == runs[0].references[n].b }
  notes << "sqlite3 and postgresql: the reference outputs of #{same.size} cases are byte-identical" +
           (differ.empty? ? "." : "; they differ in #{differ.join(', ')}.")
end
bars = runs.flat_map { |r| RecordsBench::Report.new(r).bars }
bars_table = JetsonBench::Table.new(%w[database case bar measured met], align: %i[left left left right left])
bars.each { |row| bars_table << row }

require_relative "records/notes"
notes.concat(RecordsBench.explanations(options, runs))
puts
puts "=" * 78
puts "Bars (fresh loads)"
puts bars.empty? ? "(no fresh case ran)" : bars_table.to_console
puts
(notes + skipped.map { |s| "skipped #{s}" }).each { |n| puts "- #{n}" }
elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - T0
puts "\ntotal #{format('%.0f', elapsed)} s"

if options.write
  command = "bundle exec ruby #{yjit ? '--yjit ' : ''}bench/records.rb #{ARGV.join(' ')}".strip
  md = +"# ActiveRecord through encoders and serializers, fresh loads\n\nCommand: `#{command}` (#{format('%.0f', elapsed)} s)\n\n"
  facts.each { |k, v| md << "- **#{k}**: #{v}\n" }
  runs.each do |run|
    info = run.infos["jetson"] || run.infos.values.first
    md << "- **#{run.db}**: #{info[:adapter]} #{info[:server]}; worlds #{run.infos.map { |w, i| "#{w} (pid #{i[:pid]})" }.join(', ')}\n"
  end
  md << "- **gems**: #{runs.first.infos.values.first[:gems].map { |g, v| "#{g} #{v || '-'}" }.join(', ')}\n"
  md << "\n## Bars (fresh loads)\n\n#{bars_table.to_markdown}\n"
  runs.each do |run|
    report = RecordsBench::Report.new(run)
    md << "\n## #{run.db}\n\n"
    md << "### A: Rails-mode shapes\n\n#{report.a_table.to_markdown}\n\n" if run.cases.any? { |k| k.group == "A" }
    next if report.b_cases.empty?

    md << "### B: the collection\n\n#{report.b_pairs_table.to_markdown}\n\n"
    report.b_cases.each { |k| md << "#### B #{k.mode}\n\n#{report.b_table(k).to_markdown}\n\n" }
    md << "- #{report.world_check}\n" if report.world_check
  end
  md << "\n## Notes\n\n"
  (notes + skipped.map { |s| "skipped #{s}" }).each { |n| md << "- #{n}\n" }
  path = JetsonBench::Report.write_file(JetsonBench.results_path(options.oj? ? "records-oj.md" : "records.md"), md)
  puts "wrote #{path}"
end
