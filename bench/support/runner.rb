# frozen_string_literal: true

require "json"
require "benchmark/ips"
require_relative "table"
require_relative "allocations"
require_relative "stats"
require_relative "page_faults"

module JetsonBench
  # Builds a fresh binding per contender, so that contender code can be given
  # as a String that refers to local variables (doc, opts, state, ...).
  module Compiler
    module_function

    def fresh_binding = binding

    # Returns [once, loop]: once.call runs the code one time and returns its
    # value; loop.call(n) runs it n times in a while loop with the code
    # inlined (no per-iteration Proc#call, no allocation of its own).
    def compile(code, locals, label)
      b = fresh_binding
      locals.each { |k, v| b.local_variable_set(k, v) }
      once = b.eval("-> { #{code} }", "(#{label})")
      loop = b.eval("->(bench_n_) { bench_i_ = 0; while bench_i_ < bench_n_; #{code}; bench_i_ += 1; end; nil }",
                    "(#{label} loop)")
      [once, loop]
    end
  end

  # One way of producing the output of a case.
  #   role:    :subject (a Jetson contender) or :peer (json, JSON::Coder, Oj, ...),
  #            or :floor: a lower bound on the work (e.g. a template run with a
  #            builder that writes nothing); it is timed and measured like the
  #            others, in the same rounds, but produces no output, so its output
  #            is not compared and it is neither a subject nor a peer (no best
  #            peer, no subject ratio)
  #   compare: :bytes  => output must be byte-identical to the case's reference
  #            :parsed => output must be equal to the reference after JSON.parse
  #                       (byte differences are reported as a note)
  #   code:    Ruby source evaluated with `locals` in scope, or
  #   callable: a Proc (its loop then pays a Proc#call per iteration)
  class Contender
    attr_reader :label, :role, :compare, :notes, :once, :loop

    def initialize(label, code = nil, role:, compare: :bytes, locals: {}, callable: nil, note: nil)
      @label = label
      @role = role
      @compare = compare
      @notes = Array(note)
      if callable
        @once = callable
        @loop = ->(n) { i = 0; while i < n; callable.call; i += 1; end; nil }
      else
        @once, @loop = Compiler.compile(code, locals, label)
      end
    end

    def subject? = @role == :subject
    def peer? = @role == :peer
    def floor? = @role == :floor
  end

  # A benchmark case: a reference output and the contenders to compare.
  #   reference: a Proc returning the expected output String (e.g. JSON.generate(doc))
  class Case
    attr_reader :name, :contenders, :reference, :notes

    def initialize(name, reference:, contenders:, notes: [])
      @name = name
      @reference = reference
      @contenders = contenders
      @notes = notes
    end
  end

  # Everything measured for one contender of one case.
  #   rounds: i/s of each round (benchmark-ips mean of that round), in round order
  #   ips:    median of rounds; ips_sd: half the interquartile range of rounds
  #   gc_per_1k_calls, gc_us_per_call: GC runs per 1,000 calls and GC time
  #           per call (µs) during the timed slices, median of the rounds
  #           (see CollectBetweenContenders)
  #   faults_per_call: minor page faults per call in the timed slices,
  #           median of the rounds (nil where /proc/self/stat is missing)
  Entry = Struct.new(:label, :role, :ips, :ips_sd, :rounds, :objects, :bytes, :gc_per_1k_calls, :gc_us_per_call,
                     :faults_per_call, :check, :check_message, :notes, keyword_init: true) do
    def error_pct = ips && ips.positive? && ips_sd ? 100.0 * ips_sd / ips : nil
    def ran? = !ips.nil?
    def subject? = role == :subject
    def peer? = role == :peer
    def floor? = role == :floor
    def warning? = %i[mismatch error].include?(check) || check == :encoding
  end

  class CaseResult
    attr_reader :name, :entries, :notes, :output_bytes

    def initialize(name, entries, notes, output_bytes)
      @name = name
      @entries = entries
      @notes = notes
      @output_bytes = output_bytes
    end

    def subject = @entries.find { |e| e.subject? && e.ran? }
    def subjects = @entries.select { |e| e.subject? && e.ran? }
    def best_peer = @entries.select { |e| e.peer? && e.ran? }.max_by(&:ips)
    # The case's first floor: the call itself (bench/generate.rb's fresh
    # String). A second one, where a case has it, is the walk floor: the
    # call with every value visited, as any generator must (see
    # bench/support/floor/floor.c).
    def floor = floors.first
    def walk_floor = floors[1]
    def floors = @entries.select { |e| e.floor? && e.ran? }
    def warnings = @entries.select(&:warning?)
    def ratio_for(entry) = Stats.ratio(entry, best_peer)

    # entry's time per call as a multiple of the floor's (floor i/s ÷
    # entry's i/s), paired by round: [median, half IQR]; 1.00× is the floor.
    def floor_ratio_for(entry) = Stats.ratio(floor, entry)

    # The same against the walk floor ([nil, nil] without one).
    def walk_floor_ratio_for(entry) = Stats.ratio(walk_floor, entry)

    # How much faster than the best peer a generator that only visits the
    # values would be (walk floor i/s ÷ best peer i/s): about the most any
    # generator on Ruby's public C API reaches.
    def walk_floor_bound = Stats.ratio(walk_floor, best_peer)

    # Nanoseconds per call above the floor's, from the median rounds.
    def ns_above_floor(entry)
      f = floor
      return nil unless f && entry&.ips&.positive? && f.ips.positive?

      (1e9 / entry.ips) - (1e9 / f.ips)
    end
  end

  # A benchmark-ips suite that starts every contender's warmup and timing on
  # a freshly collected heap, so that no contender pays for the garbage the
  # previous one left (json's to_json calls allocate thousands of objects per
  # call; their collection would otherwise land in whoever runs next).
  #
  # It also counts the collections and the GC time of each timed slice
  # (GC.count, GC.stat(:time) in ms), and the minor page faults (the kernel
  # handing the process fresh pages, PageFaults), per call: #gc[label] is a
  # GcCost.
  # benchmark-ips runs one more GC.start (Timing.clean_env) between #running
  # and the timing, on the heap #running has just collected: that collection
  # and the time a clean-heap GC.start takes, measured here just before, are
  # subtracted. What runs after the slice and before #add_report (building
  # the report, printing it) is counted too; it allocates little.
  class CollectBetweenContenders
    GcCost = Struct.new(:per_1k_calls, :us_per_call, :faults_per_call)

    attr_reader :gc

    def initialize
      @gc = {}
    end

    def warming(_label, _warmup) = GC.start

    def running(_label, _time)
      @clean_ms = clean_gc_ms # leaves the heap collected
      @count = GC.count
      @ms = GC.stat(:time)
      @faults = PageFaults.minor
    end

    def warmup_stats(_time, _timing); end

    def add_report(report, _caller)
      return unless report.iterations.positive?

      collections = GC.count - @count - 1
      # With no collection of its own, all the GC time is benchmark-ips'
      # GC.start. Otherwise subtract that one's estimate: its time varies by
      # a millisecond or more (a large heap's), so the rest can be negative.
      ms = collections.zero? ? 0 : [GC.stat(:time) - @ms - @clean_ms, 0].max
      faults = @faults && PageFaults.minor&.-(@faults)
      @gc[report.label] = GcCost.new(1000.0 * collections / report.iterations, 1000.0 * ms / report.iterations,
                                     faults&.fdiv(report.iterations))
    end

    private

    # Milliseconds of one GC.start on an already collected heap.
    def clean_gc_ms
      GC.start
      before = GC.stat(:time)
      GC.start
      GC.stat(:time) - before
    end
  end

  # Runs cases: output check, benchmark-ips timing (x.compare!), allocations.
  class Runner
    attr_reader :options, :results

    def initialize(options, out: $stdout)
      @options = options
      @out = out
      @results = []
    end

    def run(cases)
      cases.each { |c| @results << run_case(c) }
      @results
    end

    def run_case(kase)
      @out.puts
      @out.puts "=" * 78
      @out.puts "== #{kase.name}"
      kase.notes.each { |n| @out.puts "   note: #{n}" }
      expected = kase.reference.call
      @out.puts "   reference output: #{expected.bytesize} bytes"

      entries = kase.contenders.map do |c|
        status, message = check_output(c, expected)
        Entry.new(label: c.label, role: c.role, check: status, check_message: message, notes: c.notes)
      end
      entries.each do |e|
        next if e.check == :ok
        tag = e.warning? ? "WARNING" : "note"
        @out.puts "   #{tag}: #{e.label}: #{e.check_message}"
      end

      runnable = kase.contenders.zip(entries).reject { |_c, e| e.check == :error }
      unless runnable.empty?
        runnable.each { |_c, e| e.rounds = [] }
        gc_rounds = runnable.to_h { |c, _e| [c.label, []] } # GcCost per round
        @options.rounds.times do |round|
          order = runnable.rotate(round)
          quiet = round.positive? && !@options.verbose
          @out.puts "   -- round #{round + 1}/#{@options.rounds}" unless quiet
          suite = CollectBetweenContenders.new
          report = Benchmark.ips(quiet: quiet) do |x|
            x.config(warmup: @options.warmup, time: @options.time, suite: suite)
            order.each { |c, _e| x.report(c.label, &c.loop) }
            x.compare! unless quiet
          end
          order.each do |c, e|
            rep = report.entries.find { |r| r.label == c.label }
            e.rounds << rep.ips if rep
            gc_rounds[c.label] << suite.gc[c.label] if suite.gc[c.label]
          end
        end
        runnable.each do |c, e|
          e.ips = Stats.median(e.rounds)
          e.ips_sd = Stats.half_iqr(e.rounds)
          e.gc_per_1k_calls = Stats.median(gc_rounds[c.label].map(&:per_1k_calls))
          e.gc_us_per_call = Stats.median(gc_rounds[c.label].map(&:us_per_call))
          faults = gc_rounds[c.label].filter_map(&:faults_per_call)
          e.faults_per_call = faults.empty? ? nil : Stats.median(faults)
        end
        @out.puts "   (#{@options.rounds - 1} more rounds ran quietly; --verbose prints them)" if @options.rounds > 1 && !@options.verbose
      end

      if @options.alloc
        runnable.each do |c, e|
          next unless e.ips
          a = Allocations.measure(c.loop, seconds_per_call: 1.0 / e.ips, quick: @options.quick)
          e.objects = a.objects
          e.bytes = a.bytes
        end
      end

      result = CaseResult.new(kase.name, entries, kase.notes, expected.bytesize)
      print_case(result)
      result
    end

    # [status, message]; status: :ok, :note (equal after parse), :encoding,
    # :mismatch, :error (raised / not a String: not timed), :floor (a floor:
    # not called here, no output to compare; timed)
    def check_output(contender, expected)
      return [:floor, "a floor: produces no output, not compared; timed in the same rounds"] if contender.floor?

      out = contender.once.call
      return [:error, "returned #{out.class}, not a String"] unless out.is_a?(String)

      if out.b == expected.b
        return [:ok, "identical"] if out.encoding == expected.encoding

        return [:encoding, "same bytes but encoding #{out.encoding} (reference: #{expected.encoding})"]
      end
      diff = Stats.diff_summary(out, expected)
      if contender.compare == :parsed
        same = begin
          JSON.parse(out) == JSON.parse(expected)
        rescue JSON::ParserError => e
          return [:mismatch, "not parseable (#{e.message[0, 80]}); #{diff}"]
        end
        return [:note, "equal after JSON.parse, bytes differ: #{diff}"] if same
      end
      [:mismatch, "output differs from reference: #{diff}"]
    rescue StandardError, NotImplementedError => e
      [:error, "raised #{e.class}: #{e.message[0, 120]} (not timed)"]
    end

    def print_case(result)
      best = result.best_peer
      floor = result.floor
      headers = ["contender", "i/s", "±", "GCs/1k calls", "GC µs/call", "faults/call", "objs/call", "bytes/call", "output"]
      headers << "÷ floor" if floor # time per call as a multiple of the floor's
      t = Table.new(headers)
      result.entries.each do |e|
        mark = e == best ? " (best peer)" : ""
        check = case e.check
                when :ok then "identical"
                when :note then "equal after parse"
                when :encoding then "ENCODING DIFFERS"
                when :mismatch then "MISMATCH"
                when :floor then "none (floor)"
                else "ERROR"
                end
        row = ["#{e.label}#{mark}", Format.ips(e.ips), Format.percent(e.error_pct), Format.decimal(e.gc_per_1k_calls),
               Format.decimal(e.gc_us_per_call), Format.decimal(e.faults_per_call), Format.objects(e.objects),
               Format.bytes(e.bytes), check]
        row << (e == floor ? "-" : Format.ratio(*result.floor_ratio_for(e))) if floor
        t << row
      end
      @out.puts
      @out.puts t.to_console(indent: "   ")
      result.subjects.each do |s|
        r, spread = result.ratio_for(s)
        next unless r
        @out.puts "   #{s.label} / #{best.label}: #{Format.ratio(r, spread)} " \
                  "(#{r >= 1 ? 'Jetson faster' : 'Jetson slower'}; median of #{s.rounds.size} per-round ratios ± half their IQR)"
      end
      print_floor_lines(result)
    end

    # Jetson's and the best peer's time per call against the floor's.
    def print_floor_lines(result)
      return unless result.floor

      [result.subject, result.best_peer].compact.each do |e|
        r, spread = result.floor_ratio_for(e)
        next unless r
        @out.puts "   #{e.label} ÷ floor: #{Format.ratio(r, spread)} the floor's time per call " \
                  "(#{Format.count(result.ns_above_floor(e))} ns above it; 1.00× would be at the floor)"
      end
      return unless result.walk_floor && result.best_peer

      bound, spread = result.walk_floor_bound
      @out.puts "   walk floor: #{Format.ratio(bound, spread)} the best peer's speed, about the most a generator " \
                "visiting the values through Ruby's public C API could reach"
    end
  end
end
