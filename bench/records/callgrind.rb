# frozen_string_literal: true

require "tmpdir"
require_relative "../support/callgrind" # MARKER, check_dumps, instructions: the dump-per-marker scheme
require_relative "driver"

module RecordsBench
  # bench/records.rb --callgrind[=N]: instructions per call instead of
  # timing. Each world runs once under valgrind --tool=callgrind (plain ruby,
  # no JIT) with every selected contender of its world (bench/records/world.rb
  # --callgrind): N calls each between two marker calls, minus an empty loop,
  # as bench/generate.rb --callgrind counts them (bench/support/callgrind.rb).
  # Fresh calls include the load: the floor's count is the load's.
  module Callgrind
    CG = JetsonBench::Callgrind
    PREFIX = "callgrind-world: "

    module_function

    def main(options, calls, databases, cases, facts, tmp)
      abort "--callgrind needs valgrind on the PATH (apt-get install valgrind)" unless system("valgrind --version > /dev/null 2>&1")

      puts "instructions per call (callgrind, no JIT), #{calls} calls each; no timing"
      md = +"# ActiveRecord through encoders and serializers: instructions per call (callgrind)\n\n"
      facts.each { |k, v| md << "- **#{k}**: #{v}\n" }
      databases.each do |db|
        config = db == "sqlite3" ? { adapter: "sqlite3", database: File.join(tmp, "records.sqlite3") } : Kit::DatabaseServers.available(:postgresql)
        next puts("\n#{db}: unavailable (#{Kit::DatabaseServers.reason(:postgresql)})") unless config

        seeder = WorldProcess.new("jetson", config, yjit: false)
        seeder.call(:seed)
        seeder.close
        counts = cases.flat_map { |k| k.contenders.map(&:world) }.uniq.flat_map { |w| run_world(w, config, cases, calls) }.to_h
        t = table(cases, counts)
        puts "\n#{db} (millions of instructions per call; #{calls} calls after 2, minus an empty loop)\n#{t.to_console(indent: '  ')}"
        md << "\n## #{db}\n\nMillions of instructions per call (#{calls} calls after 2 warm ones, minus an empty loop).\n\n#{t.to_markdown}\n"
      end
      return unless options.write

      path = JetsonBench::Report.write_file(File.expand_path(OJ ? "../results/records-oj-callgrind.md" : "../results/records-callgrind.md", __dir__), md)
      puts "wrote #{path}"
    end

    # { [case name, label] => instructions per call } for one world.
    def run_world(world, config, cases, calls)
      names = cases.select { |k| k.contenders.any? { |c| c.world == world } }.map(&:name)
      Dir.mktmpdir("jetson-records-callgrind") do |dir|
        prefix = File.join(dir, "cg.out")
        log = File.join(dir, "valgrind.log")
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        command = ["valgrind", "--tool=callgrind", "--dump-before=#{CG::MARKER}", "--callgrind-out-file=#{prefix}",
                   RbConfig.ruby, WorldProcess::SCRIPT, world, JSON.generate(config), "--callgrind=#{calls}", JSON.generate(names)]
        out = IO.popen(command, err: log, &:read)
        abort "valgrind failed (world #{world}):\n#{File.readlines(log).last(20).join}" unless $?.success?
        line = out.lines.find { |l| l.start_with?(PREFIX) } || abort("world #{world} printed no manifest:\n#{out}")
        manifest = JSON.parse(line.delete_prefix(PREFIX))
        CG.check_dumps(prefix, manifest["dumps"])
        empty = CG.instructions(prefix, manifest["baseline"])
        puts "  world #{world}: #{format('%.0f', Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)} s under valgrind"
        manifest["rows"].map { |name, label, k| [[name, label], (CG.instructions(prefix, k) - empty).fdiv(calls)] }
      end
    end

    # Who a contender's count is set against: Jetson against the stock
    # encoder, jetson/jbuilder against the gem's same form.
    def against(kase, c)
      return nil unless c.role == :subject

      kase.group == "A" ? STOCK : c.check&.last
    end

    def table(cases, counts)
      t = JetsonBench::Table.new(["case", "contender", "M instr/call", "M above floor", "vs", "its ÷ this, above floor"])
      m = ->(v) { v ? format("%.2f", v / 1e6) : "-" }
      cases.each do |k|
        floor = k.floor && counts[[k.name, k.floor.label]]
        above = ->(label) { (v = counts[[k.name, label]]) && (floor ? v - floor : v) }
        k.contenders.each do |c|
          other = against(k, c)
          ratio = other && above.call(other) && above.call(c.label)&.positive? ? format("%.2f×", above.call(other) / above.call(c.label)) : ""
          t << [k.name, c.label, m.call(counts[[k.name, c.label]]), c.floor? ? "" : m.call(above.call(c.label)), other || "", ratio]
        end
      end
      t
    end
  end
end
