# frozen_string_literal: true

require "json"
require_relative "cases"
require_relative "../../kit/child_process"

module RecordsBench
  # A world process (bench/records/world.rb), driven one request at a time.
  class WorldProcess < Kit::ChildProcess
    SCRIPT = File.expand_path("world.rb", __dir__)

    attr_reader :info

    def initialize(name, config, yjit:)
      super(name, SCRIPT, name, JSON.generate(config), yjit: yjit)
      wait_ready
    end

    def load_info = (@info = call(:info))
  end

  # Everything measured on one database. rounds: case name => label => [i/s
  # per round]; checks: case name => label => { output:, sql:, bytes: };
  # allocs: case name => label => objects per call; notes: [label, text] =>
  # [case names].
  Run = Struct.new(:db, :cases, :infos, :checks, :rounds, :gcs, :allocs, :notes, :references, :seconds,
                   keyword_init: true)

  # Checks, warmup, rounds and allocation counts on one database.
  class Driver
    S = JetsonBench::Stats

    def initialize(db, worlds, cases, options, out: $stdout)
      @db = db
      @worlds = worlds
      @cases = cases
      @options = options
      @out = out
      @run = Run.new(db: db, cases: cases, infos: worlds.transform_values(&:info), checks: {}, notes: {},
                     rounds: Hash.new { |h, k| h[k] = Hash.new { |h2, k2| h2[k2] = [] } },
                     gcs: Hash.new { |h, k| h[k] = Hash.new { |h2, k2| h2[k2] = [] } }, allocs: {}, references: {})
    end

    def world(c) = @worlds.fetch(c.world)

    def run
      started = now
      @cases.each { |kase| check(kase) }
      warmup
      rounds
      allocations
      @run.seconds = now - started
      @run
    end

    # --- checks, before any timing --------------------------------------------

    def check(kase)
      outputs = kase.contenders.to_h { |c| [c.label, world(c).call(:check, kase.name, c.label)] }
      reference = outputs.fetch(RecordsBench.reference_label(kase))[:output]
      check_reference(kase, reference)
      @run.references[kase.name] = reference
      floor_sql = outputs[kase.floor&.label]&.fetch(:sql)
      results = {}
      kase.contenders.each do |c|
        r = outputs[c.label]
        verdict = c.floor? ? "none (floor)" : output_verdict(kase, c, r[:output], outputs)
        sql = r[:sql]
        expected_sql = kase.fresh? ? floor_sql : []
        if expected_sql && sql.size != expected_sql.size
          warn "WARNING: #{@db} #{kase.name} #{c.label}: #{sql.size} SQL queries per call, the floor's #{expected_sql.size}: " \
               "#{sql.first(3).join(' | ')[0, 300]}"
          note kase, c.label, "#{sql.size} SQL queries per call (expected #{expected_sql.size})"
        end
        results[c.label] = { output: verdict, sql: sql.size, bytes: r[:output]&.bytesize }
      end
      @run.checks[kase.name] = results
      @out.puts "  #{kase.name}: reference #{reference.bytesize} bytes, #{floor_sql ? "#{floor_sql.size} SQL per load" : 'no SQL per call'}; " +
                results.reject { |l, _| l == RecordsBench.reference_label(kase) }.map { |l, r| "#{l}: #{r[:output]}" }.join(", ")
    end

    # B's reference is checked for its shape; a fresh case and its loaded
    # twin must give the same bytes (the same rows, however loaded).
    def check_reference(kase, reference)
      if kase.group == "B"
        data = JSON.parse(reference)
        ok = data.size == 100 && data.all? do |h|
          h.keys == %w[id body commenter_names comments] && h["commenter_names"].size == 20 && h["comments"].size == 20 &&
            h["comments"].all? { |x| x.keys == %w[id post_id commenter_id body created_at updated_at] }
        end
        abort "#{@db} #{kase.name}: the jbuilder gem's extract! output is not 100 posts of {id, body, commenter_names[20], " \
              "comments[20 × 6 attributes]}" unless ok
      end
      twin = @run.references["#{kase.id} fresh"]
      return if twin.nil? || twin.b == reference.b

      abort "#{@db} #{kase.name}: the reference differs from the fresh case's: #{S.diff_summary(reference, twin)}"
    end

    def output_verdict(kase, c, out, outputs)
      return "reference" if c.check.nil?
      return "ERROR: returned #{outputs[c.label][:returned]}" unless out.is_a?(String)

      kind, against = c.check
      if kind == :shape # the gem's other forms against its extract!: the same data, to_builder's under "post"
        expected = outputs.fetch(RecordsBench::GEM_REFERENCE)[:output]
        return "identical to extract!" if out.b == expected.b

        data = JSON.parse(out)
        want = JSON.parse(expected)
        want = want.map { |h| { "post" => h } } if against == "to_builder"
        return data == want ? "same data as extract!#{against == 'to_builder' ? ' (under "post")' : ''}" : note_mismatch(kase, c, out, expected)
      end
      expected = outputs.fetch(against)[:output]
      return "identical#{against == RecordsBench.reference_label(kase) ? '' : " to #{against}"}" if out.b == expected.b

      if kind == :bytes
        abort "MISMATCH: #{@db} #{kase.name}: #{c.label}'s output is not byte-identical to #{against}'s: " \
              "#{S.diff_summary(out, expected)}"
      end
      if JSON.parse(out) == JSON.parse(expected)
        note kase, c.label, "equal to #{against} after JSON.parse; bytes differ: #{S.diff_summary(out, expected)}"
        "equal after parse"
      else
        note_mismatch(kase, c, out, expected)
      end
    end

    # The same note for a fresh case and its loaded twin is written once,
    # with both names.
    def note(kase, label, text) = (@run.notes[[label, text]] ||= []) << kase.name

    def note_mismatch(kase, c, out, expected)
      note kase, c.label, "DIFFERS from #{RecordsBench::GEM_REFERENCE} after JSON.parse (timed all the " \
                    "same): #{S.diff_summary(out, expected)}"
      "differs (see notes)"
    end

    # --- timing -----------------------------------------------------------------

    def jobs = @cases.flat_map { |kase| kase.contenders.map { |c| [kase, c] } }

    # Untimed calls of every contender first, so that YJIT has compiled what
    # each one runs before round 1.
    def warmup
      seconds = @options.quick ? 0.1 : 0.5
      @out.puts "  warming up: #{seconds} s of calls per contender"
      jobs.each { |kase, c| world(c).call(:time, kase.name, c.label, 0, seconds) }
    end

    # A round times every contender of every case once: case after case, in
    # each the worlds in an order rotated every round, and the contenders of a
    # world too. Slices run one at a time, never two at once.
    def rounds
      names = @worlds.keys
      @options.rounds.times do |round|
        started = now
        @cases.each do |kase|
          names.rotate(round).each do |name|
            kase.contenders.select { |c| c.world == name }.rotate(round).each do |c|
              n, elapsed, gcs = world(c).call(:time, kase.name, c.label, @options.warmup, @options.time)
              @run.rounds[kase.name][c.label][round] = n / elapsed
              @run.gcs[kase.name][c.label][round] = 1000.0 * gcs / n
              @out.puts "    #{kase.name} #{c.label}: #{format('%.2f', 1000 * elapsed / n)} ms/call (#{n} calls)" if @options.verbose
            end
          end
        end
        @out.puts "  round #{round + 1}/#{@options.rounds}: #{format('%.1f', now - started)} s"
      end
    end

    def allocations
      return unless @options.alloc

      jobs.each do |kase, c|
        ips = S.median(@run.rounds[kase.name][c.label].compact)
        n = ((@options.quick ? 0.05 : 0.2) * ips).round.clamp(2, 50)
        (@run.allocs[kase.name] ||= {})[c.label] = world(c).call(:alloc, kase.name, c.label, n)
      end
    end

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
