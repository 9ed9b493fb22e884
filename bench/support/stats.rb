# frozen_string_literal: true

module JetsonBench
  module Stats
    module_function

    # Ratio of two benchmark-ips results (a.ips / b.ips) and its spread.
    #
    # benchmark-ips reports, for each contender, the mean i/s (m) and the
    # standard deviation (sd) of the i/s of its ~100 ms samples; its "± x%"
    # is 100*sd/m. Treating the two as independent, the relative spread of the
    # ratio is the root-sum-square of the two relative spreads:
    #
    #   r = m1/m2,   spread = r * sqrt((sd1/m1)^2 + (sd2/m2)^2)
    #
    # This is a dispersion (sample-to-sample noise), not a confidence interval
    # of the mean, so it errs on the side of "not distinguishable".
    def ratio(a, b)
      return [nil, nil] unless a&.ips && b&.ips && b.ips.positive? && a.ips.positive?

      r = a.ips / b.ips
      rel = Math.sqrt(((a.ips_sd || 0) / a.ips)**2 + ((b.ips_sd || 0) / b.ips)**2)
      [r, r * rel]
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
