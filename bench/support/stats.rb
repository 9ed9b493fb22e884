# frozen_string_literal: true

module JetsonBench
  module Stats
    module_function

    # Ratio of two contenders and its spread, paired by round.
    #
    # Each round times every contender once, one after the other (~1 s each),
    # with the order rotated from round to round. On a shared machine the
    # speed drifts over minutes and other processes cause bursts of seconds;
    # a ratio taken within one round cancels the drift, and the median over
    # rounds ignores the rounds a burst spoiled. The spread is half the
    # interquartile range of the per-round ratios: half of the rounds fall
    # within ratio ± spread.
    def ratio(a, b)
      return [nil, nil] unless a&.ips && b&.ips && b.ips.positive? && a.ips.positive?

      pairs = Array(a.rounds).zip(Array(b.rounds)).select { |x, y| x&.positive? && y&.positive? }
      return [a.ips / b.ips, nil] if pairs.empty?

      per_round = pairs.map { |x, y| x / y }
      [median(per_round), half_iqr(per_round)]
    end

    def median(values) = quantile(values, 0.5)

    # Half the distance between the first and third quartiles.
    def half_iqr(values)
      return nil if values.size < 2

      (quantile(values, 0.75) - quantile(values, 0.25)) / 2.0
    end

    # Linear interpolation between closest ranks.
    def quantile(values, q)
      sorted = values.sort
      return nil if sorted.empty?

      pos = q * (sorted.size - 1)
      lo = sorted[pos.floor]
      hi = sorted[pos.ceil]
      lo + (hi - lo) * (pos - pos.floor)
    end

    # "12 vs 14 bytes; first difference at byte 5: got "...", expected "...""
    def diff_summary(got, expected, context: 24)
      g = got.b
      e = expected.b
      i = 0
      limit = [g.bytesize, e.bytesize].min
      i += 1 while i < limit && g.getbyte(i) == e.getbyte(i)
      from = [i - context, 0].max
      show = ->(s) { s.byteslice(from, context * 2).force_encoding(Encoding::UTF_8).scrub.inspect }
      "#{got.bytesize} vs #{expected.bytesize} bytes; first difference at byte #{i}: " \
        "got #{show.call(g)}, expected #{show.call(e)}"
    end
  end
end
