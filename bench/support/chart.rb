# frozen_string_literal: true

require_relative "headline"

module JetsonBench
  # The headline as an SVG bar chart, written by hand (no gem): one group of
  # horizontal bars per use, each bar Jetson's speed as a multiple of what it
  # replaces, a line at 1× (as fast), and under each group's title what it
  # was compared with and on which CPU and Ruby. A use without a ratio in its
  # results file (streaming) is named in the footer, not drawn.
  module Chart
    WIDTH = 940
    LABEL_RIGHT = 250   # the bars' labels end here
    PLOT_LEFT = 262     # 0× is here
    PLOT_RIGHT = 860    # the axis' highest tick is here
    ROW = 24            # a bar's row
    BAR = 16            # a bar's height
    GROUP_HEAD = 42     # a group's two lines of title
    GROUP_GAP = 12
    TOP = 78            # the title and the axis' labels above the first group
    FONT = "Helvetica, Arial, sans-serif"
    COLOR = "#2a6bb0"
    RANGE_COLOR = "#9cc0e6"
    # The README's chart (docs/images/speedups.svg) says this.
    SUBTITLE = "The committed results (bench/results/); each group names its CPU, Ruby and date."
    SOURCE = "bench/results/*.md, drawn by bench/chart.rb (rake bench:chart)"

    module_function

    def esc(text) = text.to_s.gsub("&", "&amp;").gsub("<", "&lt;").gsub(">", "&gt;").gsub('"', "&quot;")

    # subtitle: what the numbers are (e.g. "committed results" or "this
    # machine's quick look"), under the title.
    def svg(uses, subtitle: SUBTITLE, source: SOURCE)
      drawn = uses.reject { _1.bars.empty? }
      left_out = uses - drawn
      bars = drawn.flat_map(&:bars)
      ticks = (0..[bars.map(&:high).max.ceil, 2].max).to_a
      x = ->(value) { PLOT_LEFT + ((PLOT_RIGHT - PLOT_LEFT) * value / ticks.last.to_f) }
      # One more tick while a bar's value (about 7.5 px a character) would
      # run past the right edge.
      while bars.any? { x[_1.high] + 6 + (_1.text.size * 7.5) > WIDTH - 8 }
        ticks << (ticks.last + 1)
      end
      height = TOP + drawn.sum { GROUP_HEAD + (_1.bars.size * ROW) + GROUP_GAP } + 58
      plot_top = TOP - 8
      plot_bottom = height - 62

      out = []
      out << %(<svg xmlns="http://www.w3.org/2000/svg" width="#{WIDTH}" height="#{height}" ) +
             %(viewBox="0 0 #{WIDTH} #{height}" font-family="#{FONT}" font-size="13">)
      out << %(<rect width="#{WIDTH}" height="#{height}" fill="#ffffff"/>)
      out << %(<text x="16" y="26" font-size="18" font-weight="bold" fill="#1a1a1a">) +
             %(Jetson: × the speed of what it replaces (higher is faster)</text>)
      out << %(<text x="16" y="46" fill="#555555">#{esc(subtitle)}</text>)
      ticks.each do |t|
        out << %(<text x="#{x[t].round(1)}" y="#{plot_top - 6}" text-anchor="middle" fill="#555555">#{t}×</text>)
      end
      # The grid under a group's bars and the 1× line over them, not across
      # the group's title.
      line = lambda do |t, from, to, stroke|
        out << %(<line x1="#{x[t].round(1)}" y1="#{from}" x2="#{x[t].round(1)}" y2="#{to}" #{stroke}/>)
      end
      baseline = %(stroke="#c0392b" stroke-width="2" stroke-dasharray="5,3")
      out << %(<text x="#{(x[1] + 6).round(1)}" y="#{plot_bottom + 16}" fill="#c0392b">) +
             %(1× = as fast as what it replaces</text>)

      y = TOP
      drawn.each do |u|
        out << %(<text x="16" y="#{y + 16}" font-weight="bold" fill="#1a1a1a">#{esc(u.title)}</text>)
        out << %(<text x="16" y="#{y + 33}" font-size="12" fill="#555555">) +
               %(#{esc("vs #{u.against} · #{u.cpu} · Ruby #{u.ruby} · #{u.date} · #{u.file}")}</text>)
        y += GROUP_HEAD
        bars_top = y - 2
        bars_bottom = y + (u.bars.size * ROW) + 2
        ticks.each { |t| line[t, bars_top, bars_bottom, %(stroke="#e3e3e3")] unless t == 1 }
        u.bars.each do |b|
          mid = y + (ROW / 2.0)
          out << %(<text x="#{LABEL_RIGHT}" y="#{(mid + 4.5).round(1)}" text-anchor="end" fill="#1a1a1a">) +
                 %(#{esc(b.label)}</text>)
          bar_y = (mid - (BAR / 2.0)).round(1)
          out << %(<rect x="#{PLOT_LEFT}" y="#{bar_y}" width="#{(x[b.low] - PLOT_LEFT).round(1)}" ) +
                 %(height="#{BAR}" fill="#{COLOR}"/>)
          if b.range?
            out << %(<rect x="#{x[b.low].round(1)}" y="#{bar_y}" width="#{(x[b.high] - x[b.low]).round(1)}" ) +
                   %(height="#{BAR}" fill="#{RANGE_COLOR}"/>)
          end
          out << %(<text x="#{(x[b.high] + 6).round(1)}" y="#{(mid + 4.5).round(1)}" font-weight="bold" ) +
                 %(fill="#1a1a1a">#{esc(b.text)}</text>)
          y += ROW
        end
        line[1, bars_top, bars_bottom, baseline]
        y += GROUP_GAP
      end

      not_drawn = left_out.map { "#{_1.title} (#{_1.file})" }.join("; ")
      notes = ["Each bar: Jetson's requests or calls per second ÷ the other's, median of paired rounds or boots; " \
               "a light bar spans the range over the cases.",
               "#{left_out.empty? ? '' : "Not drawn (no ratio in its file): #{not_drawn}. "}Source: #{source}."]
      notes.each_with_index do |n, i|
        out << %(<text x="16" y="#{plot_bottom + 36 + (i * 16)}" font-size="11" fill="#555555">#{esc(n)}</text>)
      end
      out << "</svg>"
      "#{out.join("\n")}\n"
    end
  end
end
