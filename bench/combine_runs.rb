#!/usr/bin/env ruby
# frozen_string_literal: true

# Puts runs of bench/generate.rb side by side, as the README's results table:
# each run's ratio to the fastest peer, and the last run's fastest peer, GC
# time per call and objects per call. Reads the Summary table of each
# results file given (bench/results/generate.md copied after each run), in
# the order given.
#
#   ruby bench/combine_runs.rb run1.md run2.md run3.md

SUMMARY_COLUMNS = ["case", "Jetson i/s", "best peer", "best peer i/s", "ratio ± spread", "Jetson objs/call",
                   "peer objs/call", "Jetson GC µs/call", "peer GC µs/call", "State ratio"].freeze

# The Summary table's rows of one results file: case name => column => cell.
def summary_rows(path)
  lines = File.readlines(path, chomp: true)
  start = lines.index("## Summary") or abort "#{path}: no Summary section"
  table = lines[start..].drop_while { |l| !l.start_with?("| case") }.take_while { |l| l.start_with?("|") }
  cells = table.map { |l| l.split("|")[1..].map(&:strip) }
  abort "#{path}: unexpected Summary columns #{cells.first.inspect}" unless cells.first == SUMMARY_COLUMNS
  cells.drop(2).to_h do |row|
    name = row[0].sub(/ \[[\d,]+\]\z/, "")
    [name, SUMMARY_COLUMNS.zip(row).to_h]
  end
end

# "1.97× ± 0.06" with the ratio cut to two decimals, as the runs print it.
def ratio(cell) = cell&.sub(/\A(\d+\.\d\d)\d*×/, '\1×') || "-"

abort "usage: ruby bench/combine_runs.rb RESULTS.md..." if ARGV.empty?
runs = ARGV.map { |path| summary_rows(path) }
last = runs.last
header = ["case", "fastest peer (run #{runs.size})", *runs.each_index.map { |i| "ratio run #{i + 1}" },
          "GC µs/call run #{runs.size} (Jetson / peer)", "Jetson objs/call", "peer objs/call"]
puts "| #{header.join(' | ')} |"
puts "| :--- | :--- |#{' ---: |' * (header.size - 2)}"
last.each do |name, row|
  cells = [name, row["best peer"], *runs.map { |run| ratio(run.dig(name, "ratio ± spread")) },
           "#{row['Jetson GC µs/call']} / #{row['peer GC µs/call']}", row["Jetson objs/call"], row["peer objs/call"]]
  puts "| #{cells.join(' | ')} |"
end
