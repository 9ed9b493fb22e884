# frozen_string_literal: true

require "etc"
require "time"
require_relative "table"
require_relative "stats"
require_relative "results_dir"

module JetsonBench
  # Where the numbers come from: Ruby, YJIT, gems, CPU, date.
  module Environment
    module_function

    def yjit? = defined?(RubyVM::YJIT) && RubyVM::YJIT.respond_to?(:enabled?) && RubyVM::YJIT.enabled? ? true : false

    # "AMD EPYC (cpu family 26, model 2)": the model name alone does not
    # tell two generations of a vendor's server CPUs apart, and results
    # differ between them.
    def cpu_model
      facts = {}
      File.foreach("/proc/cpuinfo") do |line|
        key, value = line.split(":", 2).map(&:strip)
        break if key.nil? || key.empty? # the first processor's block is enough
        facts[key] ||= value
      end
      "#{facts['model name'] || 'unknown'} (cpu family #{facts['cpu family'] || '?'}, model #{facts['model'] || '?'})"
    rescue SystemCallError
      "unknown"
    end

    def jetson_description
      return "not loaded" unless defined?(::Jetson)
      return "STAND-IN (Jetson delegating to json; not the real extension)" if defined?(::Jetson::BENCH_STAND_IN)

      ext = $LOADED_FEATURES.find { |f| f.match?(%r{/jetson/(?:[\d.]+/)?jetson\.(so|bundle|dll)\z}) } # lib/jetson/RUBY_VERSION/
      version = defined?(::Jetson::VERSION) ? ::Jetson::VERSION : "?"
      "#{version}#{ext ? " (#{ext})" : ' (extension file not found in $LOADED_FEATURES)'}"
    end

    def gem_version(name)
      Gem.loaded_specs[name]&.version&.to_s
    end

    def git_revision
      root = File.expand_path("../..", __dir__)
      rev = `git -C #{root} rev-parse --short HEAD 2>/dev/null`.strip
      return "no commit yet" if rev.empty?

      # The results files themselves do not count: a run rewrites them, and
      # the runs after it would all say "+ uncommitted changes".
      status = `git -C #{root} status --porcelain -- . ':!bench/results' 2>/dev/null`
      dirty = status.strip.empty? ? "" : " (+ uncommitted changes)"
      "#{rev}#{dirty}"
    rescue SystemCallError
      "unknown"
    end

    # [[label, value], ...]
    def facts(options)
      [["Date", Time.now.utc.iso8601],
       ["Ruby", RUBY_DESCRIPTION],
       ["YJIT", yjit? ? "on" : "off"],
       ["Jetson", jetson_description],
       ["json", defined?(JSON::VERSION) ? JSON::VERSION : "?"],
       ["oj", defined?(Oj::VERSION) ? Oj::VERSION : "not loaded"],
       ["benchmark-ips", gem_version("benchmark-ips") || "?"],
       ["memory_profiler", gem_version("memory_profiler") || "not loaded"],
       ["CPU", "#{cpu_model}, #{Etc.nprocessors} cores visible"],
       ["Repo revision", git_revision],
       ["Settings", options.describe]] +
        # bench/generate.rb's timed runs (support/steady_process.rb)
        (ENV["JETSON_BENCH_STEADY"] ? [["Process", ENV["JETSON_BENCH_STEADY"]]] : [])
    end
  end

  # Summary table + markdown results file.
  module Report
    module_function

    SUMMARY_HEADERS = ["case", "Jetson i/s", "best peer", "best peer i/s", "ratio ± spread",
                       "Jetson objs/call", "peer objs/call", "Jetson GC µs/call", "peer GC µs/call",
                       "State ratio", "floor i/s", "Jetson ÷ floor", "best peer ÷ floor",
                       "Jetson ns above floor", "Jetson ÷ walk floor", "ratio bound (walk floor)"].freeze

    # Footnotes are numbered across the whole table: [[case, [footnote numbers]]]
    def summary(results, footnotes)
      t = Table.new(SUMMARY_HEADERS)
      results.each do |res|
        s = res.subject
        peer = res.best_peer
        r, spread = Stats.ratio(s, peer)
        state = res.subjects.find { |e| e != s }
        sr, sspread = Stats.ratio(state, peer)
        floor = res.floor
        marks = []
        (res.notes + res.entries.flat_map { |e| e.notes + (%i[ok floor].include?(e.check) ? [] : ["#{e.label}: #{e.check_message}"]) }).uniq.each do |note|
          footnotes << note unless footnotes.include?(note)
          marks << footnotes.index(note) + 1
        end
        warn_mark = res.warnings.any? ? " (!)" : ""
        name = res.name + warn_mark + (marks.empty? ? "" : " [#{marks.uniq.join(',')}]")
        t << [name, Format.ips(s&.ips), peer&.label || "-", Format.ips(peer&.ips), Format.ratio(r, spread),
              Format.objects(s&.objects), Format.objects(peer&.objects), Format.decimal(s&.gc_us_per_call),
              Format.decimal(peer&.gc_us_per_call), state ? Format.ratio(sr, sspread) : "-",
              Format.ips(floor&.ips), Format.ratio(*res.floor_ratio_for(s)), Format.ratio(*res.floor_ratio_for(peer)),
              Format.count(res.ns_above_floor(s)), Format.ratio(*res.walk_floor_ratio_for(s)),
              Format.ratio(*res.walk_floor_bound)]
      end
      t
    end

    # "÷ floor" (a contender's time per call as a multiple of the floor's)
    # only for cases that have a floor.
    def detail(result)
      floor = result.floor
      headers = ["contender", "i/s", "±", "GCs/1k calls", "GC µs/call", "faults/call", "objs/call", "bytes/call", "output"]
      headers << "÷ floor" if floor
      t = Table.new(headers)
      result.entries.each do |e|
        check = { ok: "identical", note: "equal after parse", encoding: "encoding differs",
                  mismatch: "MISMATCH", error: "error", floor: "none (floor)" }.fetch(e.check, e.check.to_s)
        row = [e.label, Format.ips(e.ips), Format.percent(e.error_pct), Format.decimal(e.gc_per_1k_calls),
               Format.decimal(e.gc_us_per_call), Format.decimal(e.faults_per_call), Format.objects(e.objects),
               Format.bytes(e.bytes), check]
        row << (e == floor ? "-" : Format.ratio(*result.floor_ratio_for(e))) if floor
        t << row
      end
      t
    end

    def print_summary(results, out: $stdout)
      footnotes = []
      t = summary(results, footnotes)
      out.puts
      out.puts "=" * 78
      out.puts "Summary (ratio = Jetson.generate i/s / best peer i/s; > 1 means Jetson is faster)"
      if results.any?(&:floor)
        out.puts "(÷ floor = time per call ÷ the floor's, a C method returning a fresh String of the output; " \
                 "1.00× would be at the floor)"
      end
      out.puts t.to_console
      out.puts
      footnotes.each_with_index { |n, i| out.puts "[#{i + 1}] #{n}" }
      out.puts "(!) = a contender's output was not equal to the reference; see the case output." if results.any? { |r| r.warnings.any? }
    end

    def write_markdown(path, title:, results:, options:, data_notes:, extra_notes: [], command: nil)
      footnotes = []
      summary_table = summary(results, footnotes)
      md = +"# #{title}\n\n"
      md << "Command: `#{command}`\n\n" if command
      Environment.facts(options).each { |k, v| md << "- **#{k}**: #{v}\n" }
      md << "\n"
      unless data_notes.empty?
        md << "Data:\n\n"
        data_notes.each { |n| md << "- #{n}\n" }
        md << "\n"
      end
      md << "## Summary\n\n"
      md << "ratio = Jetson.generate i/s ÷ fastest peer i/s (peers: json, JSON::Coder, Oj); > 1 means Jetson is faster. " \
            "Each case runs in rounds (every contender once per round, order rotated, GC.start before each); " \
            "i/s is a contender's median round; ratio is the median of the per-round ratios and spread half their " \
            "interquartile range. " \
            "State ratio: the same for a reused Jetson::State. objs/call: GC.stat(:total_allocated_objects) delta per call. " \
            "GC µs/call: GC.stat(:time) spent in the timed slices per call, median round (benchmark-ips' " \
            "clean-heap GC.start subtracted). " \
            "faults/call (per case): minor page faults in the timed slices per call, median round " \
            "(/proc/self/stat): fresh pages the kernel handed the process, which glibc takes back (trims) when the " \
            "GC frees a run of results and hands out again on the next calls; on a VM each costs microseconds, so " \
            "on outputs of kilobytes and up they can outweigh the writing and draw every contender toward the " \
            "floor (docs/benchmarks.md). " \
            "floor: a C method called as Jetson.generate is that returns a fresh String of the expected bytes " \
            "and does nothing else (bench/support/floor/floor.c), timed in the same rounds: the cost of the call " \
            "itself (dispatch, arguments, the result String; on large documents allocating the output and " \
            "copying its bytes) that no generator can go below. Jetson ÷ floor: Jetson.generate's time per call " \
            "as a multiple of the floor's (floor i/s ÷ Jetson i/s), median of the per-round ratios ± half their " \
            "interquartile range; 1.00× would be at the floor. best peer ÷ floor: the same for the fastest peer. " \
            "Jetson ns above floor: 1e9 ÷ Jetson's median i/s − 1e9 ÷ the floor's, the time per call Jetson " \
            "spends on its own work. Per case, ÷ floor is the same ratio for every contender. " \
            "walk floor: the floor's call, which first visits every value of the document as any generator on " \
            "Ruby's public C API must (Arrays by their elements, Hashes with rb_hash_foreach, each value's type, a " \
            "String's length and coderange) and writes nothing (bench/support/floor/floor.c), timed in the same " \
            "rounds. Jetson ÷ walk floor: Jetson's time per call as a multiple of the walk floor's. ratio bound " \
            "(walk floor): walk floor i/s ÷ the fastest peer's, median of the per-round ratios: about the ratio a " \
            "generator on that API would reach if writing the bytes cost nothing.\n\n"
      md << summary_table.to_markdown << "\n\n"
      unless footnotes.empty?
        footnotes.each_with_index { |n, i| md << "#{i + 1}. #{n}\n" }
        md << "\n"
      end
      if results.any? { |r| r.warnings.any? }
        md << "(!) a contender's output was not equal to the reference output.\n\n"
      end
      extra_notes.each { |n| md << "#{n}\n\n" }
      md << "## Per case\n\n"
      results.each do |res|
        md << "### #{res.name}\n\n"
        md << "Reference output: #{res.output_bytes} bytes.\n\n"
        md << detail(res).to_markdown << "\n\n"
      end
      write_file(path, md)
    end

    # The head of a one-off results file (bench/views/breakdown.rb, gc.rb):
    # its title, the command, and where the numbers come from.
    def head(title, command)
      "# #{title}\n\nCommand: `#{command}`\n\n" \
        "- **Date**: #{Time.now.utc.strftime('%Y-%m-%dT%H:%M:%SZ')}\n" \
        "- **Ruby**: #{RUBY_DESCRIPTION}\n" \
        "- **CPU**: #{Environment.cpu_model}, #{Etc.nprocessors} cores visible\n" \
        "- **Repo revision**: #{Environment.git_revision}\n"
    end

    # Prints text and, unless argv says --no-write, writes it to
    # bench/results/NAME.
    def publish(text, name, argv)
      puts text
      return if argv.include?("--no-write")

      puts "written to #{write_file(JetsonBench.results_path(name), text)}"
    end

    # Written beside and renamed into place, so that an interrupted run never
    # leaves half a results file.
    def write_file(path, text)
      dir = File.dirname(path)
      Dir.mkdir(dir) unless File.directory?(dir)
      tmp = "#{path}.tmp"
      File.write(tmp, text)
      File.rename(tmp, path)
      path
    end
  end
end
