# frozen_string_literal: true

module JetsonBench
  # A tiny table that renders both as aligned console text and as markdown.
  class Table
    attr_reader :headers, :rows

    # align: one of :left / :right per column (default: first left, rest right)
    def initialize(headers, align: nil)
      @headers = headers.map(&:to_s)
      @align = align || [:left] + [:right] * (headers.size - 1)
      @rows = []
    end

    def <<(row)
      @rows << row.map { |c| c.nil? ? "" : c.to_s }
      self
    end

    def to_console(indent: "")
      widths = @headers.each_index.map { |i| ([@headers[i]] + @rows.map { |r| r[i] || "" }).map { |s| display_width(s) }.max }
      line = ->(cells) { indent + cells.each_with_index.map { |c, i| pad(c || "", widths[i], @align[i]) }.join("  ").rstrip }
      [line.call(@headers), indent + widths.map { |w| "-" * w }.join("  "), *@rows.map(&line)].join("\n")
    end

    def to_markdown
      esc = ->(s) { s.gsub("|", "\\|") }
      sep = @align.map { |a| a == :right ? "---:" : ":---" }
      ["| #{@headers.map(&esc).join(' | ')} |", "| #{sep.join(' | ')} |",
       *@rows.map { |r| "| #{r.map(&esc).join(' | ')} |" }].join("\n")
    end

    private

    # Good enough for what we print (ASCII, ±, ×; CJK counted double).
    def display_width(s) = s.each_char.sum { |ch| ch.ord >= 0x2E80 ? 2 : 1 }

    def pad(s, width, align)
      fill = " " * [width - display_width(s), 0].max
      align == :right ? fill + s : s + fill
    end
  end

  module Format
    module_function

    # [scale, format] from the largest unit down; the last one takes the rest.
    IPS_UNITS = [[1e9, "%.3fG"], [1e6, "%.3fM"], [1e3, "%.2fk"], [1, "%.2f"]].freeze
    BYTE_UNITS = [[1024.0 * 1024, "%.2f MiB"], [1024.0, "%.1f KiB"], [1, "%.0f B"]].freeze

    # 1234567.8 => "1.235M"; 12346 => "12.35k"; 12.3 => "12.30"
    def ips(v) = scaled(v, IPS_UNITS)

    # 2_500_000 => "2.38 MiB"; 1536 => "1.5 KiB"; 100 => "100 B"
    def bytes(v) = scaled(v, BYTE_UNITS)

    def scaled(v, units)
      return "-" if v.nil?

      scale, fmt = units.find { |s, _| v >= s } || units.last
      format(fmt, v / scale)
    end

    def objects(v)
      return "-" if v.nil?
      (v - v.round).abs < 0.005 ? v.round.to_s : format("%.2f", v)
    end

    def percent(v) = v.nil? ? "-" : format("%.1f%%", v)

    # Fewer decimals as the value grows, so that small per-call figures (GC
    # time, collections per 1k calls) keep their digits: 0.012, 1.25, 12.5, 125.
    def decimal(v)
      return "-" if v.nil?
      return "0" if v.zero?

      places = if v.abs >= 100 then 0
               elsif v.abs >= 10 then 1
               elsif v.abs >= 1 then 2
               else 3
               end
      format("%.#{places}f", v)
    end

    # 1234567.4 => "1,234,567"
    def count(v) = v.nil? ? "-" : v.round.to_s.gsub(/(\d)(?=(\d{3})+\z)/, '\1,')

    # Truncated, not rounded, to two decimals: a ratio shown as 1.20× is at
    # least 1.20 (the bar the generator benchmark is held to).
    def ratio(r, spread)
      return "-" if r.nil?
      shown = (r * 100).floor / 100.0
      spread ? format("%.2f× ± %.2f", shown, spread) : format("%.2f×", shown)
    end
  end
end
