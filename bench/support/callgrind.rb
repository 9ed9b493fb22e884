# frozen_string_literal: true

require "json"
require "rbconfig"
require "shellwords"
require "tmpdir"
require_relative "runner"
require_relative "report"
require_relative "table"
require_relative "callgrind_functions"

module JetsonBench
  # bench/generate.rb --callgrind[=N]: instructions per call of every
  # contender, counted by valgrind's callgrind. Unlike i/s, the count does not
  # depend on the machine's load, so small differences show.
  #
  # One valgrind process per case runs `bench/generate.rb --callgrind-child=N
  # CASE` (plain ruby: no JIT, the interpreter's and the C code's
  # instructions). The child builds the case and, for an empty loop first and
  # then for each contender, runs it 3 times, calls the marker, runs N calls,
  # calls the marker. With --dump-before=MARKER callgrind writes its counters
  # to a new file (cg.out.1, cg.out.2, ...) on every call of the marker, each
  # holding the instructions since the previous one: the N calls are one
  # known file. The empty loop's file (the marker's own cost and N iterations
  # of the loop) is subtracted from each contender's before dividing by N.
  # The child tells the parent which file is whose in one JSON line on
  # stdout; the parent never loads the documents.
  module Callgrind
    # The C function behind Process.times, which nothing in the contenders
    # calls. (Process.clock_getres' rb_clock_getres would do too, but it is
    # static in Debian's libruby 3.1, so valgrind cannot see it.)
    MARKER = "rb_proc_times"
    MANIFEST_PREFIX = "callgrind-child: "
    WARM_CALLS = 3
    # Output checks that make the child skip a contender: one that raises.
    # An output that differs is counted, as the timed run times it (canada's
    # float digits, see "Where Jetson differs"), with a note.
    SKIPPED = %w[error].freeze

    # instructions: per call, nil when skipped
    Row = Struct.new(:label, :role, :instructions, :check, :message, keyword_init: true) do
      def peer? = role == "peer"
      def floor? = role == "floor"
    end

    # parts: {label => [CallgrindFunctions::Part]} for Jetson.generate and
    # the best peer: where their instructions go
    CaseResult = Struct.new(:name, :rows, :notes, :parts, keyword_init: true) do
      def measured = rows.select(&:instructions)
      def subject = measured.find { |r| r.label == "Jetson.generate" }
      def best_peer = measured.select(&:peer?).min_by(&:instructions)
      # The first floor is the call; a second, the walk floor (see
      # bench/support/floor/floor.c), the call with every value visited.
      def floor = measured.find(&:floor?)
      def walk_floor = measured.select(&:floor?)[1]
      def skipped = rows.reject(&:instructions)

      # Instructions per call above the floor's (nil without a floor).
      def above_floor(row) = floor && row.instructions - floor.instructions
    end

    module_function

    # --- the child, under valgrind ------------------------------------------

    def child(kase, calls, out: $stdout)
      expected = kase.reference.call
      checker = Runner.new(nil, out: $stderr)
      marks = 0
      mark = lambda do
        Process.times
        marks += 1
      end
      # Returns the number of the dump file holding the `calls` calls.
      measure = lambda do |contender|
        contender.loop.call(WARM_CALLS)
        GC.start # as when timing: nobody pays for the previous one's garbage
        mark.call
        contender.loop.call(calls)
        mark.call
        marks
      end

      empty = Contender.new("(empty loop)", "nil", role: :floor)
      # Twice: the first pair of marker calls is cold (Process.times' call
      # cache, first use of its Struct), which puts ~1,500 instructions more
      # into the first segment than into any later one.
      measure.call(empty)
      manifest = { baseline: measure.call(empty), contenders: [] }
      differing = []
      kase.contenders.each do |c|
        check, message = checker.check_output(c, expected)
        row = { label: c.label, role: c.role, check: check, message: message }
        row[:dump] = measure.call(c) unless SKIPPED.include?(check.to_s)
        differing << "#{c.label} counted, its output differs: #{message}" if %w[mismatch encoding].include?(check.to_s)
        manifest[:contenders] << row
      end
      manifest.merge!(dumps: marks, yjit: Environment.yjit?, output_bytes: expected.bytesize,
                      notes: kase.notes + Documents.notes + differing)
      out.puts MANIFEST_PREFIX + JSON.generate(manifest)
    end

    # --- the parent -----------------------------------------------------------

    def run(names, calls:, options:, script:, argv:, out: $stdout)
      version = `valgrind --version 2>/dev/null`.strip
      abort "--callgrind needs valgrind on the PATH (e.g. apt-get install valgrind)" unless $?&.success?

      out.puts "Jetson generate benchmark — instructions per call (callgrind, no JIT), #{calls} calls per contender"
      env_facts = facts(options, version)
      env_facts.each { |k, v| out.puts "  #{k}: #{v}" }
      results = names.map { |name| run_case(name, calls, script, out) }
      return unless options.write

      path = File.expand_path("../results/generate-callgrind.md", __dir__)
      write_markdown(path, results, env_facts, calls, "bundle exec ruby bench/generate.rb #{Shellwords.join(argv)}".strip)
      out.puts "\nwrote #{path}"
    end

    def facts(options, valgrind_version)
      Environment.facts(options).reject { |k, _| %w[YJIT benchmark-ips memory_profiler Settings].include?(k) } +
        [["JIT", "off (the child runs plain ruby under valgrind)"], ["valgrind", valgrind_version]]
    end

    def run_case(name, calls, script, out)
      out.puts
      out.puts "=" * 78
      out.puts "== #{name}"
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      result = Dir.mktmpdir("jetson-callgrind") { |dir| run_child(name, calls, script, dir) }
      out.puts "   (#{format('%.0f', Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)} s under valgrind)"
      result.notes.each { |n| out.puts "   note: #{n}" }
      result.skipped.each { |r| out.puts "   note: #{r.label} skipped: #{r.message}" }
      out.puts
      out.puts table(result).to_console(indent: "   ")
      s = result.subject
      best = result.best_peer
      if s && best
        out.puts "   #{best.label} executes #{Format.ratio(best.instructions / s.instructions, nil)} the instructions " \
                 "of Jetson.generate (> 1: Jetson executes fewer)"
      end
      if s && result.floor
        out.puts "   Jetson.generate executes #{Format.count(result.above_floor(s))} instructions per call above the " \
                 "floor's #{Format.count(result.floor.instructions)}" \
                 "#{best ? " (#{best.label}: #{Format.count(result.above_floor(best))})" : ''}"
      end
      if s && (walk = result.walk_floor)
        out.puts "   the walk floor executes #{Format.count(result.above_floor(walk))} of them visiting the values; " \
                 "Jetson.generate #{Format.count(s.instructions - walk.instructions)} more"
      end
      result.parts.each do |label, parts|
        out.puts
        out.puts "   where #{label}'s instructions go, per call (self cost; the loop's in the VM's part):"
        out.puts parts_table(parts).to_console(indent: "   ")
      end
      result
    end

    def run_child(name, calls, script, dir)
      prefix = File.join(dir, "cg.out")
      log = File.join(dir, "valgrind.log")
      command = ["valgrind", "--tool=callgrind", "--dump-before=#{MARKER}", "--callgrind-out-file=#{prefix}",
                 RbConfig.ruby, script, "--callgrind-child=#{calls}", name]
      stdout = IO.popen(command, err: log, &:read)
      abort "valgrind failed for #{name.inspect}:\n#{File.readlines(log).last(20).join}" unless $?.success?
      line = stdout.lines.reverse.find { |l| l.start_with?(MANIFEST_PREFIX) } ||
             abort("the callgrind child printed no result for #{name.inspect}:\n#{stdout}")
      manifest = JSON.parse(line.delete_prefix(MANIFEST_PREFIX))
      check_dumps(prefix, manifest["dumps"])
      warn "WARNING: the callgrind child ran with YJIT on (RUBYOPT?)" if manifest["yjit"]

      empty = instructions(prefix, manifest["baseline"])
      rows = manifest["contenders"].map do |c|
        ir = c["dump"] && (instructions(prefix, c["dump"]) - empty).fdiv(calls)
        Row.new(label: c["label"], role: c["role"], instructions: ir, check: c["check"], message: c["message"])
      end
      notes = ["reference output: #{manifest['output_bytes']} bytes"] + manifest["notes"]
      result = CaseResult.new(name: name, rows: rows, notes: notes, parts: {})
      # While the dumps exist: the parts of Jetson's call and of the best peer's.
      [result.subject, result.best_peer].compact.each do |row|
        dump = manifest["contenders"].find { |c| c["label"] == row.label }["dump"]
        result.parts[row.label] = CallgrindFunctions.parts("#{prefix}.#{dump}", calls)
      end
      result
    end

    # One dump per marker call, or the file numbers mean nothing (the marker
    # not seen by valgrind, or called by something else).
    def check_dumps(prefix, expected)
      found = Dir.glob("#{prefix}.*").size
      return if found == expected

      abort "callgrind wrote #{found} dump files, the child called #{MARKER} #{expected} times"
    end

    # The "summary:" (or "totals:") line of dump file number k: instructions
    # executed since the previous dump.
    def instructions(prefix, k)
      line = File.foreach("#{prefix}.#{k}").find { |l| l.start_with?("summary:", "totals:") }
      Integer(line.split[1])
    end

    PARTS_SHOWN = 12

    def parts_table(parts)
      t = Table.new(["part", "instructions/call"])
      parts.first(PARTS_SHOWN).each { |p| t << [p.name, Format.count(p.instructions)] }
      rest = parts.drop(PARTS_SHOWN).sum(&:instructions)
      t << ["(#{parts.size - PARTS_SHOWN} more)", Format.count(rest)] if parts.size > PARTS_SHOWN
      t
    end

    # The floor is a row of its own; it is no peer, so never the best one,
    # and "above floor" is every other row's count minus its. The walk
    # floor's "best peer ÷ this" is about the most any generator on Ruby's
    # public C API reaches.
    def table(result)
      best = result.best_peer
      floor = result.floor
      headers = ["contender", "instructions/call", "best peer ÷ this"]
      headers << "above floor" if floor
      t = Table.new(headers)
      result.measured.each do |r|
        mark = r == best ? " (best peer)" : ""
        ratio = best && !r.equal?(floor) ? Format.ratio(best.instructions / r.instructions, nil) : "-"
        row = ["#{r.label}#{mark}", Format.count(r.instructions), ratio]
        row << (r.equal?(floor) ? "-" : Format.count(result.above_floor(r))) if floor
        t << row
      end
      t
    end

    def write_markdown(path, results, facts, calls, command)
      md = +"# Jetson generate benchmark: instructions per call (callgrind)\n\n"
      md << "Command: `#{command}`\n\n"
      facts.each { |k, v| md << "- **#{k}**: #{v}\n" }
      md << "\nInstructions executed per call, counted by valgrind --tool=callgrind over #{calls} calls per " \
            "contender after #{WARM_CALLS} warm-up calls, minus an empty loop of as many iterations (see " \
            "bench/README.md). best peer ÷ this > 1: the contender executes fewer instructions than the best " \
            "peer (json, JSON::Coder, Oj; the one with the fewest). The floor row is a C method called as " \
            "Jetson.generate is that returns a fresh String of the expected bytes and does nothing else " \
            "(bench/support/floor/floor.c): the call itself and the result String, which no generator can go " \
            "below; it is no peer. The walk floor row is the same call, which first visits every value of the " \
            "document as any generator on Ruby's public C API must (Arrays by their elements, Hashes with " \
            "rb_hash_foreach, each value's type, a String's length and coderange) and writes nothing: its " \
            "best peer ÷ this is about the most any such generator reaches. above floor: instructions/call − " \
            "the floor's, what a contender executes for its own work. Where the instructions go: each " \
            "function's self cost in the same calls, per call " \
            "(bench/support/callgrind_functions.rb): the extension's functions with what was inlined into them, " \
            "Ruby's Hash iteration (rb_hash_foreach and the rb_ensure it guards a Hash's table with), the " \
            "result String with the GC, and the method call, which also holds the loop's own iterations " \
            "(subtracted in instructions/call, not here). Overwritten by each --callgrind run.\n\n"
      results.each do |res|
        md << "## #{res.name}\n\n"
        md << table(res).to_markdown << "\n\n"
        (res.notes + res.skipped.map { |r| "#{r.label} skipped: #{r.message}" }).each { |n| md << "- #{n}\n" }
        md << "\n"
        res.parts.each do |label, parts|
          md << "Where #{label}'s instructions go, per call:\n\n" << parts_table(parts).to_markdown << "\n\n"
        end
      end
      Report.write_file(path, md)
    end
  end
end
