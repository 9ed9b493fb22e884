# frozen_string_literal: true

# Random documents run through both sides: Stats, and Runner's plan of
# options and calls per document.  Runner shrinks mismatches in
# mismatch_shrinking.rb and reports them in mismatch_report.rb.
module Differential
  # ---------------------------------------------------------------------------
  # The runner
  # ---------------------------------------------------------------------------

  class Stats
    attr_accessor :docs, :calls, :mismatch_count
    attr_reader :mismatches, :by_signature, :warning_notes, :signatures, :outcomes

    def initialize(max_kept: 200)
      @max_kept = max_kept
      @docs = 0
      @calls = 0
      @mismatch_count = 0
      @mismatches = []      # the first max_kept mismatches
      @by_signature = {}    # "entry: signature" => first mismatch with it
      @warning_notes = {}   # distinct warning-text differences => count
      @signatures = Hash.new(0)
      @outcomes = Hash.new(0)
    end

    def add_mismatch(m)
      @mismatch_count += 1
      key = "#{m.entry}: #{m.signature}"
      @signatures[key] += 1
      @by_signature[key] ||= m
      @mismatches << m if @mismatches.size < @max_kept
    end

    def add_warning_note(note)
      jw, kw = note
      # Both lists in full (shortened): the counts are equal (else it is a
      # mismatch), and a set difference would hide which texts pair up,
      # e.g. json ["JSON.generate: X", "JSON.generate: X"] against Jetson
      # ["JSON.generate: X", "Jetson.generate: X"] (a to_json handed the
      # json gem's State warns through the json gem).
      key = [jw.map { |w| w[0, 160] }, kw.map { |w| w[0, 160] }]
      @warning_notes[key] = (@warning_notes[key] || 0) + 1 if @warning_notes.size < 50 || @warning_notes.key?(key)
    end

    # Plain data (for sending from a worker process).
    def summary
      {
        docs: @docs, calls: @calls, mismatch_count: @mismatch_count,
        warning_notes: @warning_notes, signatures: @signatures.to_h,
        outcomes: @outcomes.to_h,
        kept: (@by_signature.values + @mismatches).uniq.map { |m| [m.doc_index, m.entry, m.extra, m.signature] }
      }
    end

    # Merge a summary (from a worker).  `rebuild` turns a kept tuple back into
    # a Mismatch (by re-running that call), or returns nil.
    def merge_summary!(h, &rebuild)
      @docs += h[:docs]
      @calls += h[:calls]
      @mismatch_count += h[:mismatch_count]
      h[:warning_notes].each { |k, v| @warning_notes[k] = (@warning_notes[k] || 0) + v }
      h[:signatures].each { |k, v| @signatures[k] += v }
      h[:outcomes].each { |k, v| @outcomes[k] += v }
      h[:kept].each do |tuple|
        key = "#{tuple[1]}: #{tuple[3]}"
        next if @by_signature.key?(key) && @mismatches.size >= @max_kept

        m = rebuild&.call(*tuple)
        next unless m

        @by_signature[key] ||= m
        @mismatches << m if @mismatches.size < @max_kept
      end
      self
    end
  end

  class Runner
    attr_reader :seed, :stats

    # entries: restrict to these entry points; generator_options: passed to
    # RandomGraph::Generator.new (profile:, depth:, width:, ...).
    def initialize(seed:, json_side: Differential.json_side, jetson_side: Differential.jetson_side,
                   max_kept: 200, entries: nil, generator_options: {})
      @seed = seed
      @json_side = json_side
      @jetson_side = jetson_side
      @only_entries = entries
      @generator_options = generator_options
      @stats = Stats.new(max_kept: max_kept)
    end

    def doc_rng(index)
      Random.new(@seed * (2**32) + index)
    end

    # The spec, options and call plan for document `index`.
    def plan(index)
      rng = doc_rng(index)
      gen = RandomGraph::Generator.new(rng, **@generator_options)
      spec = gen.document
      opts = gen.options
      if opts.is_a?(Hash) && opts[:strict] && RandomGraph::NON_STRING_AS_JSON.include?(opts[:as_json]) &&
         RandomGraph.foreign_text?(spec)
        opts = opts.merge(as_json: RandomGraph::AS_JSON[:to_s]) # see RandomGraph::NON_STRING_AS_JSON
      end
      # generate always; the other entry points on a random subset (each one
      # still runs on thousands of documents per 10k).
      calls = [[:generate, nil]]
      calls << [:pretty_generate, nil] if gen.chance(0.5)
      calls << [:generate_state, nil] if gen.chance(0.35)
      calls << [:state_generate_io, nil] if gen.chance(0.35)
      calls << [:state_generate, nil] if gen.chance(0.2)
      calls << [:generate_kw, nil] if Differential.symbol_keyed?(opts) && gen.chance(0.2)
      calls << [:pretty_generate_state, nil] if gen.chance(0.15)
      calls << [:state_reuse, nil] if gen.chance(0.1)
      calls << [:dump, [:plain, nil]] if gen.chance(0.4)
      if gen.chance(0.4)
        form = gen.pick(DUMP_FORMS)
        form = :opts if form == :kwargs && !Differential.symbol_keyed?(opts)
        calls << [:dump, [form, gen.pick([0, 1, 2, 3, 5, 100, nil, false])]]
      end
      calls.select! { |(e, _)| @only_entries.include?(e) } if @only_entries
      # Unbounded recursion (a cycle with nesting checks disabled) is kept out
      # of random runs: on Ruby 3.1 a stack overflow inside a Ruby callback
      # can abort the VM.  SystemStackError is covered by a forked test.
      calls.select! { |(e, x)| Differential.nesting_limited?(e, opts, x) } if RandomGraph.cyclic?(spec)
      [spec, opts, calls]
    end

    def materialize(spec)
      RandomGraph::Pair.new(spec, json_fragment: @json_side.fragment_class, jetson_fragment: @jetson_side.fragment_class)
    end

    # Runs one call on both sides and compares.
    def compare_call(spec, opts, entry, extra)
      pair = materialize(spec)
      a = Differential.run_entry(@json_side, entry, pair.json, opts, extra)
      b = Differential.run_entry(@jetson_side, entry, pair.jetson, opts, extra)
      [Differential.compare_outcomes(a, b, pair), a, b]
    end

    # Re-run one recorded call and return its Mismatch (nil if it now agrees).
    def rebuild_mismatch(doc_index, entry, extra, _signature = nil)
      spec, opts, = plan(doc_index)
      (kind, info, _), a, b = Differential.with_warnings_enabled { compare_call(spec, opts, entry, extra) }
      return nil unless kind == :mismatch

      Mismatch.new(signature: info, entry: entry, extra: extra, json: a, jetson: b, doc_index: doc_index,
                   seed: @seed, spec: spec, opts: opts)
    end

    # `progress` (optional) is called with (index, entry) before each call.
    def run_doc(index, stats = @stats, progress = nil)
      spec, opts, calls = plan(index)
      pair = materialize(spec)
      before = Differential.graph_fingerprint(pair.jetson)
      calls.each do |(entry, extra)|
        progress&.call(index, entry)
        a = Differential.run_entry(@json_side, entry, pair.json, opts, extra)
        b = Differential.run_entry(@jetson_side, entry, pair.jetson, opts, extra)
        stats.calls += 1
        stats.outcomes[a.error ? "error:#{a.error.class.name}" : "ok"] += 1
        kind, info, note = Differential.compare_outcomes(a, b, pair)
        stats.add_warning_note(note) if note
        if kind == :mismatch
          stats.add_mismatch(Mismatch.new(signature: info, entry: entry, extra: extra, json: a, jetson: b,
                                          doc_index: index, seed: @seed, spec: spec, opts: opts))
        end
      end
      # Generating must not change the input.
      if before != Differential.graph_fingerprint(pair.jetson)
        stats.add_mismatch(Mismatch.new(signature: "input graph changed by generation", entry: :all, extra: nil,
                                        json: Outcome.new(nil, nil, []), jetson: Outcome.new(nil, nil, []),
                                        doc_index: index, seed: @seed, spec: spec, opts: opts))
      end
      stats.docs += 1
      stats
    end

    def run(range, stats = @stats, progress = nil)
      Differential.with_warnings_enabled do
        range.each { |i| run_doc(i, stats, progress) }
      end
      stats
    end
  end
end
