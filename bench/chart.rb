# frozen_string_literal: true

# The headline of the benchmarks, read from results files: the README's
# table (printed, and written with --markdown=PATH) and the chart
# (--svg=PATH). Every number comes from the results files; a file, table or
# row that is missing fails the run, naming it (bench/support/headline.rb).
#
#   ruby bench/chart.rb [--results=DIR] [--svg=PATH] [--markdown=PATH] [--subtitle=TEXT]
#
# rake bench:chart: bench/results/ into docs/images/speedups.svg (the
# README's chart); rake bench: its own quick runs (tmp/bench-quick/) into
# tmp/bench-quick/speedups.svg and headline.md.

require "optparse"
require "fileutils"
require_relative "support/headline"
require_relative "support/chart"

root = File.expand_path("..", __dir__)
opts = { results: File.join(root, "bench/results"), svg: nil, markdown: nil, subtitle: JetsonBench::Chart::SUBTITLE }
OptionParser.new do |o|
  o.on("--results=DIR") { opts[:results] = File.expand_path(_1) }
  o.on("--svg=PATH") { opts[:svg] = File.expand_path(_1) }
  o.on("--markdown=PATH") { opts[:markdown] = File.expand_path(_1) }
  o.on("--subtitle=TEXT") { opts[:subtitle] = _1 }
end.parse!

begin
  uses = JetsonBench::Headline.uses(opts[:results])
rescue JetsonBench::Headline::Missing => e
  abort "bench/chart.rb: #{e.message}"
end
table = JetsonBench::Headline.markdown(uses)
puts table
if opts[:markdown]
  FileUtils.mkdir_p(File.dirname(opts[:markdown]))
  File.write(opts[:markdown], "#{table}\n")
  puts "wrote #{opts[:markdown]}"
end
if opts[:svg]
  relative = opts[:results].delete_prefix("#{root}/")
  source = JetsonBench::Chart::SOURCE.sub("bench/results", relative)
  FileUtils.mkdir_p(File.dirname(opts[:svg]))
  File.write(opts[:svg], JetsonBench::Chart.svg(uses, subtitle: opts[:subtitle], source: source))
  puts "wrote #{opts[:svg]}"
end
