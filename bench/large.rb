# frozen_string_literal: true

# The large documents' two modes (issue 55): every contender's rounds, with
# minor page faults per call, the best, the median and the slowest round, in
# two heaps:
#
# - steady: GC.start before each timed slice, then whole calls for the slice.
#   The results pile up until a collection frees several at once; glibc then
#   gives the top of its heap back to the kernel (or unmaps a result it had
#   mapped on its own), and the next results fault their pages in again.
#   Whether it does depends on where the freed results lie and on glibc's
#   thresholds, which move with the sizes freed so far: rounds swing between
#   a fast mode and this slow one (issue 55).
# - collected: a full collection (GC.start(full_mark: true)) before every
#   call, only the calls timed: the last result is freed just before the
#   next call and its memory reused, so this is the writing alone.
#
# Two floors (bench/support/floor/floor.c) are timed in the same rounds:
# the walk floor visits every value and writes nothing; the write floor
# also writes every String's bytes into a result of the expected length.
# On a document of many Strings the write floor is about what any generator
# must at least do; the floor's median ÷ the best peer's is about the most
# the ratio can reach (it copies each String with a call of its own, so a
# generator can come out a little ahead of it).
#
# The header says what a page never written before costs on this machine,
# faulted in and populated ahead (bench/support/floor/page_cost.c): the
# steady rows' slow slices are that cost, paid by whoever writes a result on
# fresh pages, and it differs by orders of magnitude between bare metal and
# a guest whose hypervisor maps its pages lazily.
#
# "Jetson.generate, JETSON_FRESH_PAGES=0" is Jetson with its populating of
# large buffers' absent pages switched off (ext/jetson/bytes/fresh_pages.c),
# timed in the same rounds; it is not a peer.
#
#   bundle exec ruby --yjit bench/large.rb [--rounds=N] [--slice=SECONDS] [--no-write] [case-filter ...]
#
# Contenders rotate from round to round. Results: bench/results/large.md.

require_relative "support/setup"
require_relative "support/floor"

module JetsonBench
  module Large
    DEFAULT_ROUNDS = 7
    DEFAULT_SLICE = 0.4
    MODES = %w[steady collected].freeze

    Contender = Struct.new(:label, :role, :call)

    module_function

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

    def cases
      {
        "mixed utf8 (5 MB)" => -> { [("a" * 5000) + "€" + ("a" * 5000)] * 500 },
        "mostly utf8 (5 MB)" => -> { ["€" * 3333] * 500 },
        "twitter.json" => -> { Documents.load("twitter").value },
        "citm_catalog.json" => -> { Documents.load("citm_catalog").value },
        "canada.json" => -> { Documents.load("canada").value }
      }
    end

    def contenders(doc, expected)
      coder = JSON::Coder.new
      list = [Contender.new("Jetson.generate", :subject, -> { Jetson.generate(doc) }),
              # What populating a large buffer's absent pages in one call
              # (ext/jetson/bytes/fresh_pages.c) saves: the same build with
              # it switched off, the pages faulted in by the writes.
              Contender.new("Jetson.generate, JETSON_FRESH_PAGES=0", :baseline, lambda do
                ENV["JETSON_FRESH_PAGES"] = "0"
                Jetson.generate(doc)
              ensure
                ENV.delete("JETSON_FRESH_PAGES")
              end),
              Contender.new("JSON.generate", :json, -> { JSON.generate(doc) }),
              Contender.new("JSON::Coder#dump", :peer, -> { coder.dump(doc) })]
      list << Contender.new("Oj.dump(compat)", :peer, -> { Oj.dump(doc, mode: :compat) }) if defined?(Oj)
      # Two floors (bench/support/floor/floor.c), timed in the same rounds:
      # the walk floor visits every value and writes nothing; the write
      # floor also writes every String's bytes into a result of the
      # expected length, in place. No generator goes below the write floor
      # on a document of many Strings: it reads and writes what any must.
      if (floor = Floor.writer(expected))
        list << Contender.new(Floor::WALK_LABEL, :floor, -> { floor.walk(doc) })
        list << Contender.new(Floor::WRITE_LABEL, :floor, -> { floor.write_walk(doc) })
      end
      list
    end

    # One slice: [calls per second, faults per call].
    def slice(mode, seconds, call)
      GC.start
      calls = 0
      faults = 0
      timed = 0.0
      if mode == "steady"
        before = PageFaults.minor
        start = now
        loop do
          call.call
          calls += 1
          break if (timed = now - start) >= seconds
        end
        faults = PageFaults.minor - before
      else
        start = now
        while now - start < seconds || calls.zero?
          GC.start(full_mark: true, immediate_sweep: true)
          before = PageFaults.minor
          t = now
          call.call
          timed += now - t
          faults += PageFaults.minor - before
          calls += 1
        end
      end
      [calls / timed, faults.fdiv(calls)]
    end

    def median(values) = Stats.median(values)

    # What a page never written before costs on this machine (the results
    # depend on it: see bench/support/floor/page_cost.c), as a header line.
    def page_cost_line
      costs = Floor.page_costs
      return "- Fresh pages here: not measured (#{Floor.problem || 'not Linux'})" unless costs

      line = format("- Fresh pages here (5 MiB mapped afresh, %d-byte pages, median of 5 samples; " \
                    "bench/support/floor/page_cost.c): written, %.2f µs a page (%.1f faults a page); ",
                    costs[:page_size], costs[:written_us], costs[:written_faults])
      unless costs[:populate_us]
        return line + format("resident, %.3f µs a page; this kernel does not populate (no MADV_POPULATE_WRITE)",
                             costs[:resident_us])
      end

      line += format("populated first (MADV_POPULATE_WRITE), %.2f µs a page, then written, %.2f µs a page with " \
                     "%.1f faults a page counted by the kernel; resident, %.3f µs a page. ",
                     costs[:populate_us], costs[:after_populate_us], costs[:after_populate_faults], costs[:resident_us])
      line + if outside_the_kernel?(costs)
               "Here the first write of a populated page is paid outside the kernel (a hypervisor mapping the " \
                 "guest's pages lazily or through shadow page tables): a result on fresh pages pays it whoever " \
                 "writes it, and the steady rows' slow slices are mostly that."
             else
               "Here a populated page is written at about memory speed."
             end
    end

    # A populated page's first write costing over 20 resident writes with no
    # fault counted: what the guest's kernel does not see.
    def outside_the_kernel?(costs)
      costs[:after_populate_faults] < 0.01 && costs[:after_populate_us] > 20 * costs[:resident_us] &&
        costs[:after_populate_us] > 0.5
    end

    def run_case(name, doc, mode, rounds, seconds)
      expected = JSON.generate(doc)
      list = contenders(doc, expected)
      list.each do |c|
        out = c.call.call
        next 2.times { c.call.call } if c.role == :floor # its bytes are not a document
        # Jetson and the json gem's Coder: json's bytes. Oj writes some Floats
        # with other digits (canada.json); equal after parse.
        same = out == expected || (c.label.start_with?("Oj") && JSON.parse(out) == JSON.parse(expected))
        abort "bench/large.rb: #{c.label} differs on #{name}" unless same
        2.times { c.call.call } # warm (YJIT, the kept buffers)
      end
      rows = list.to_h { |c| [c, []] }
      rounds.times do |r|
        list.rotate(r).each { |c| rows[c] << slice(mode, seconds, c.call) }
      end
      { name: name, mode: mode, bytes: expected.bytesize, rows: rows }
    end

    def summarize(result)
      stats = result[:rows].to_h do |c, rs|
        ips = rs.map(&:first)
        [c, { best: ips.max, median: median(ips), slowest: ips.min, faults: median(rs.map(&:last)),
              faults_max: rs.map(&:last).max, rounds: ips }]
      end
      jetson = stats.find { |c, _| c.role == :subject }&.last
      json = stats.find { |c, _| c.role == :json }&.last
      best_peer = stats.select { |c, _| %i[json peer].include?(c.role) }.values.max_by { _1[:median] }
      # Rounds are slices in turn, so a round's contenders meet about the
      # same machine and heap: Jetson against json round by round.
      jetson_rounds = result[:rows].find { |c, _| c.role == :subject }.last.map(&:first)
      json_rounds = result[:rows].find { |c, _| c.role == :json }.last.map(&:first)
      paired = jetson_rounds.zip(json_rounds).map { |j, n| j / n }
      write_floor = stats.find { |c, _| c.label == Floor::WRITE_LABEL }&.last
      # Only where nothing faults is the floor a floor: in the steady heap
      # its own results take fresh pages as anyone's do.
      write_floor = nil unless result[:mode] == "collected"
      result.merge(stats: stats, slowest_vs_json: jetson[:slowest] / json[:median],
                   median_vs_best: jetson[:median] / best_peer[:median],
                   paired_lowest: paired.min, paired_median: median(paired),
                   best_peer_vs_floor: write_floor && best_peer[:median] / write_floor[:median],
                   median_vs_floor: write_floor && jetson[:median] / write_floor[:median])
    end

    def table(result)
      lines = ["### #{result[:name]}, #{result[:mode]} (#{result[:bytes]} bytes)", "",
               "| contender | best i/s | median i/s | slowest i/s | faults/call (median, most) | rounds (i/s) |",
               "| :--- | ---: | ---: | ---: | ---: | :--- |"]
      result[:stats].each do |c, s|
        lines << format("| %s | %.0f | %.0f | %.0f | %.0f, %.0f | %s |", c.label, s[:best], s[:median], s[:slowest],
                        s[:faults], s[:faults_max], s[:rounds].map(&:round).join(" "))
      end
      met = result[:slowest_vs_json] >= 1 && result[:median_vs_best] >= 1.5
      lines << "" << format("Jetson's slowest round ÷ JSON.generate's median: %.2f×; Jetson's median ÷ the best " \
                            "peer's median: %.2f× (%s).", result[:slowest_vs_json], result[:median_vs_best],
                            met ? "both goals met" : "goal not met")
      lines << format("Jetson ÷ JSON.generate within each round: lowest %.2f×, median %.2f×.",
                      result[:paired_lowest], result[:paired_median])
      if result[:median_vs_floor]
        lines << format("Medians ÷ the write floor's: Jetson %.2f×, the best peer %.2f× (1.00× is the floor's " \
                        "speed); where the document is mostly Strings (the floor writes no number), the most a " \
                        "generator's median can be against the best peer's is about %.2f×.",
                        result[:median_vs_floor], result[:best_peer_vs_floor], 1 / result[:best_peer_vs_floor])
      end
      lines
    end

    # On a shared machine the times move with the others' work: the load
    # average at the start and the end goes into the results file.
    def loadavg
      File.read("/proc/loadavg").split.first(3).join(" ")
    rescue SystemCallError
      "unknown"
    end
  end
end

if $PROGRAM_NAME == __FILE__
  args = ARGV.dup
  rounds = args.find { _1.start_with?("--rounds=") }&.split("=", 2)&.last&.to_i || JetsonBench::Large::DEFAULT_ROUNDS
  seconds = args.find { _1.start_with?("--slice=") }&.split("=", 2)&.last&.to_f || JetsonBench::Large::DEFAULT_SLICE
  write = !args.include?("--no-write")
  filters = args.reject { _1.start_with?("--") }.map(&:downcase)
  selected = JetsonBench::Large.cases.select { |name, _| filters.empty? || filters.any? { name.downcase.include?(_1) } }
  abort "no case matches #{filters.inspect}" if selected.empty?

  env = JetsonBench::Environment
  load_before = JetsonBench::Large.loadavg
  head = ["# Large documents: rounds, medians, slowest rounds and page faults", "",
          "`bundle exec ruby #{env.yjit? ? '--yjit ' : ''}bench/large.rb #{ARGV.join(' ')}`".sub(/ `\z/, "`"), "",
          "- CPU: #{env.cpu_model}", "- Ruby: #{RUBY_DESCRIPTION}",
          "- json #{JSON::VERSION}#{defined?(Oj) ? ", oj #{Oj::VERSION}" : ''}",
          "- Repo revision: #{env.git_revision}", "- Date: #{Time.now.utc.iso8601}",
          "- #{rounds} rounds of #{seconds} s per contender, case and mode; contenders rotated each round",
          "- steady: GC.start before each slice, then whole calls; collected: GC.start(full_mark: true) before " \
          "every call, only the call timed; faults are minor page faults per call (/proc/self/stat)",
          "- Outputs checked against JSON.generate's: bytes (Oj's: equal after JSON.parse, its Floats' digits differ " \
          "on canada.json)",
          "- Floors (bench/support/floor/floor.c), timed in the same rounds, not contenders: the walk floor visits " \
          "every value and writes nothing; the write floor also writes every String's bytes into a result of the " \
          "expected length, in place",
          "- MALLOC_TRIM_THRESHOLD_: #{ENV['MALLOC_TRIM_THRESHOLD_'] || 'unset (glibc default)'}",
          JetsonBench::Large.page_cost_line]
  head.each { puts _1 }
  body = []
  selected.each do |name, build|
    doc = build.call
    JetsonBench::Large::MODES.each do |mode|
      result = JetsonBench::Large.summarize(JetsonBench::Large.run_case(name, doc, mode, rounds, seconds))
      lines = JetsonBench::Large.table(result)
      puts "", *lines
      body << "" << lines
    end
  end
  load_note = "- Load average (1, 5, 15 min) at the start: #{load_before}; at the end: #{JetsonBench::Large.loadavg}"
  puts "", load_note
  if write
    path = JetsonBench.results_path("large.md")
    File.write(path, "#{[*head, load_note, *body.flatten].join("\n")}\n")
    puts "wrote #{path}"
  end
end
