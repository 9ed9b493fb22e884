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

    # 1234567.8 => "1.235M"; 12345 => "12.35k"; 12.3 => "12.30"
    def ips(v)
      return "-" if v.nil?
      if v >= 1e9 then format("%.3fG", v / 1e9)
      elsif v >= 1e6 then format("%.3fM", v / 1e6)
      elsif v >= 1e3 then format("%.2fk", v / 1e3)
      else format("%.2f", v)
      end
    end

    def bytes(v)
      return "-" if v.nil?
      if v >= 1024 * 1024 then format("%.2f MiB", v / 1024.0 / 1024)
      elsif v >= 1024 then format("%.1f KiB", v / 1024.0)
      else format("%.0f B", v)
      end
    end

    def objects(v)
      return "-" if v.nil?
      (v - v.round).abs < 0.005 ? v.round.to_s : format("%.2f", v)
    end

    def percent(v) = v.nil? ? "-" : format("%.1f%%", v)

    def ratio(r, spread)
      return "-" if r.nil?
      spread ? format("%.2f× ± %.2f", r, spread) : format("%.2f×", r)
    end
  end
end
