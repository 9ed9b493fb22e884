# frozen_string_literal: true

require "etc"
require_relative "cases"

module RecordsBench
  # The tables of bench/records.rb, from a Run (bench/records/driver.rb).
  # Every ratio is paired by round: computed within each round, then the
  # median ± half the interquartile range of the rounds (JetsonBench::Stats),
  # truncated to two decimals (JetsonBench::Format.ratio).
  class Report
    F = JetsonBench::Format
    S = JetsonBench::Stats

    # "AMD EPYC (cpu family 26, model 2), 2 cores visible".
    def self.cpu
      "#{JetsonBench::Environment.cpu_model}, #{Etc.nprocessors} cores visible"
    end

    def initialize(run)
      @run = run
    end

    def rounds(kase, label) = @run.rounds[kase.name][label]
    def ms_rounds(kase, label) = rounds(kase, label).map { |ips| ips && 1000.0 / ips }
    def ms(kase, label) = (m = S.median(rounds(kase, label).compact)) ? 1000.0 / m : nil
    def objs(kase, label) = F.objects(@run.allocs.dig(kase.name, label))

    # ms per call above the load floor of the same round, in the
    # contender's own world: the same load ran from 0.98× to 1.13× as fast in
    # the jbuilder world as in the jetson world (the world check; the two
    # processes' heaps differ). No floor (loaded once) counts as 0.
    def floor_of(kase, label)
      world = kase.contender(label).world
      kase.contenders.find { |c| c.floor? && c.world == world } || kase.floor
    end

    def above_rounds(kase, label)
      floor_label = floor_of(kase, label)&.label
      floor = floor_label ? ms_rounds(kase, floor_label) : []
      ms_rounds(kase, label).each_with_index.map do |x, i|
        next nil if x.nil?

        floor_label ? (floor[i] && x - floor[i]) : x
      end
    end

    def above(kase, label) = S.median(above_rounds(kase, label).compact)

    # [median, half IQR, rounds used, rounds] of a per-round figure.
    def paired(a, b)
      values = a.zip(b).filter_map { |x, y| yield(x, y) if x && y }
      [S.median(values), S.half_iqr(values), values.size, [a.size, b.size].max]
    end

    def show(stats)
      r, spread, used, all = stats
      return "-" if r.nil?

      F.ratio(r, spread) + (used < all ? " (#{used}/#{all} rounds)" : "")
    end

    # i/s of a ÷ i/s of b.
    def speed(kase, a, b) = paired(rounds(kase, a), rounds(kase, b)) { |x, y| x / y }

    # b's time above the floor ÷ a's: how many times less time a spends above
    # the load; a round where a is at or below the floor has no ratio.
    def above_ratio(kase, a, b) = paired(above_rounds(kase, a), above_rounds(kase, b)) { |x, y| x.positive? ? y / x : nil }

    def ms_text(v) = v.nil? ? "-" : format("%.2f", v)

    def a_table
      t = JetsonBench::Table.new(["case", "mode", "stock ms", "Jetson ms", "Jetson ÷ stock (i/s)", "floor ms",
                                  "stock above floor", "Jetson above floor", "above floor: stock ÷ Jetson", "≥ 5×",
                                  "objs/call stock / Jetson / floor", "SQL"], align: %i[left left] + [:right] * 10)
      @run.cases.select { |k| k.group == "A" }.each do |k|
        above = above_ratio(k, JETSON, STOCK)
        t << [k.id, k.mode.to_s, ms_text(ms(k, STOCK)), ms_text(ms(k, JETSON)), show(speed(k, JETSON, STOCK)),
              k.floor ? ms_text(ms(k, FLOOR)) : "0 (no load)", ms_text(above(k, STOCK)), ms_text(above(k, JETSON)),
              show(above), k.fresh? ? (above[0] && above[0] >= 5 ? "yes" : "no") : "",
              [STOCK, JETSON, FLOOR].map { |l| k.contender(l) ? objs(k, l) : "-" }.join(" / "),
              @run.checks.dig(k.name, STOCK, :sql).to_s]
      end
      t
    end

    def b_cases = @run.cases.select { |k| k.group == "B" }

    def b_table(kase)
      t = JetsonBench::Table.new(["contender", "world", "i/s", "±", "ms/call", "ms above floor", "÷ jbuilder gem (same form)",
                                  "÷ panko", "GCs/1k calls", "objs/call", "SQL", "output"],
                                 align: %i[left left] + [:right] * 9 + [:left])
      kase.contenders.each do |c|
        r = rounds(kase, c.label).compact
        ips = S.median(r)
        form = c.label[/: (.+)\z/, 1]
        gem = form && c.label.start_with?("jetson/") ? "jbuilder gem: #{form}" : nil
        t << [c.label, c.world, F.ips(ips), ips && r.size > 1 ? F.percent(100.0 * S.half_iqr(r) / ips) : "-",
              ms_text(ms(kase, c.label)), c.floor? ? "0" : ms_text(above(kase, c.label)),
              gem ? show(speed(kase, c.label, gem)) : "", c.floor? ? "" : show(speed(kase, c.label, "panko")),
              F.decimal(S.median(@run.gcs[kase.name][c.label].compact)), objs(kase, c.label),
              @run.checks.dig(kase.name, c.label, :sql).to_s, @run.checks.dig(kase.name, c.label, :output)]
      end
      t
    end

    B_PAIRS = [
      *B_FORMS.keys.map { |f| ["jetson/jbuilder: #{f}", "jbuilder gem: #{f}", ""] },
      *B_FORMS.keys.map { |f| ["jetson/jbuilder: #{f}", "panko", "≥ 1× (moonshot 1.3×)"] },
      ["to_json, #{JETSON}", TO_JSON_STOCK, "above floor ≥ 5×"]
    ].freeze

    def b_pairs_table
      fresh = b_cases.find(&:fresh?)
      loaded = b_cases.find { |k| !k.fresh? }
      t = JetsonBench::Table.new(["a ÷ b", "fresh: i/s ratio", "fresh: above floor (b's ÷ a's)", "loaded once: i/s ratio",
                                  "target (fresh)", "met"], align: [:left] + [:right] * 3 + %i[left left])
      B_PAIRS.each do |a, b, target|
        total = fresh && speed(fresh, a, b)
        above = fresh && above_ratio(fresh, a, b)
        met = if target.start_with?("≥ 1×") && total&.first
                [total, above].map { |x| x[0] && (x[0] >= 1.3 ? "1.3×" : x[0] >= 1 ? "1×" : "no") }.then { |x, y| "i/s #{x}, above #{y}" }
              elsif target.start_with?("above") && above&.first
                above[0] >= 5 ? "yes" : "no"
              else
                ""
              end
        t << ["#{a} ÷ #{b}", fresh ? show(total) : "-", fresh ? show(above) : "-", loaded ? show(speed(loaded, a, b)) : "-",
              target, met]
      end
      t
    end

    # The jbuilder world's floor against the jetson world's: the worlds load
    # the same rows the same way, so about 1 if the worlds are alike.
    def world_check
      k = b_cases.find(&:fresh?)
      return nil unless k&.contender(FLOOR_JBUILDER)

      "world check, #{@run.db} (B fresh): the jbuilder world's load floor i/s ÷ the jetson world's = " \
        "#{show(speed(k, FLOOR_JBUILDER, FLOOR))} (about 1 when the worlds are alike)"
    end

    def bars
      rows = @run.cases.select { |k| k.group == "A" && k.fresh? }.map do |k|
        a = above_ratio(k, JETSON, STOCK)
        [@run.db, "#{k.id} fresh", "stock's above floor ÷ Jetson's ≥ 5×", show(a), a[0] && a[0] >= 5 ? "yes" : "no"]
      end
      if (k = b_cases.find(&:fresh?))
        B_FORMS.each_key do |f|
          s = speed(k, "jetson/jbuilder: #{f}", "panko")
          a = above_ratio(k, "jetson/jbuilder: #{f}", "panko")
          rows << [@run.db, "B fresh #{f}", "jetson/jbuilder ÷ panko ≥ 1× (1.3×)",
                   "i/s #{show(s)}; above floor #{show(a)}", s[0] && (s[0] >= 1.3 ? "1.3×" : s[0] >= 1 ? "1×" : "no")]
        end
      end
      rows
    end
  end
end
