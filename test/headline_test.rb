# frozen_string_literal: true

require "test_helper"
require "support/subprocess"
require "tmpdir"
require "fileutils"
require "open3"
require_relative "../bench/support/headline"
require_relative "../bench/support/chart"

# The README's headline (its table and docs/images/speedups.svg) is what
# bench/chart.rb reads from bench/results/*.md, so no number in it is typed
# in: a results file rewritten by a new run, or a README edited by hand,
# fails here until `bundle exec rake bench:chart` is run and its table
# pasted in. And a results file whose table lost a row the headline reads
# fails loudly, naming the file and the row, instead of drawing less.
class HeadlineTest < Minitest::Test
  include JetsonSubprocess
  RESULTS = File.join(ROOT, "bench/results")
  H = JetsonBench::Headline

  def uses = H.uses(RESULTS)

  def test_every_use_is_read_from_its_results_file_with_its_cpu
    read = uses
    assert_equal %w[deploy.md views.md rails.md records.md records-oj.md builder.md streaming.md generate.md],
                 read.map(&:file)
    read.each do |u|
      assert_match(/\A(?:Intel|AMD) .+\(cpu family \d+, model \d+\)\z/, u.cpu, u.file)
      u.bars.each { |b| assert_operator b.low, :>, 0, "#{u.file}: #{b.label}" }
    end
    views = read.find { _1.file == "views.md" }
    # The Summary table's cell, "1.65× (0.93–2.44)", read as 1.65.
    text = File.read(File.join(RESULTS, "views.md"), encoding: Encoding::UTF_8)
    summary = text[/^\| Jetson \(jetson\/jbuilder\) \| [^|]+ \| ([\d.]+)×/, 1]
    assert_equal Float(summary), views.bars.first.low
  end

  def test_the_readme_shows_the_table_read_from_bench_results
    readme = File.read(File.join(ROOT, "README.md"), encoding: Encoding::UTF_8)
    assert_includes readme, H.markdown(uses),
                    "README.md's headline table differs from bench/results: run `bundle exec rake bench:chart` " \
                    "and paste the table it prints"
  end

  def test_the_committed_chart_is_drawn_from_bench_results
    committed = File.read(File.join(ROOT, "docs/images/speedups.svg"), encoding: Encoding::UTF_8)
    assert_equal JetsonBench::Chart.svg(uses), committed, "docs/images/speedups.svg is not bench/results' chart: bundle exec rake bench:chart"
  end

  # A copy of bench/results with one row taken out of one file.
  def without(file, row_start)
    Dir.mktmpdir do |dir|
      FileUtils.cp(Dir[File.join(RESULTS, "*.md")], dir)
      path = File.join(dir, file)
      text = File.read(path, encoding: Encoding::UTF_8)
      cut = text.lines.reject { _1.start_with?(row_start) }.join
      refute_equal text, cut, "the test's row #{row_start.inspect} is not in #{file}"
      File.write(path, cut)
      yield dir
    end
  end

  def test_a_missing_row_fails_naming_the_file_and_the_row
    without("deploy.md", "| cached |") do |dir|
      error = assert_raises(H::Missing) { H.uses(dir) }
      assert_match(/deploy\.md: no table with a column "ratio" and a row "cached"/, error.message)
    end
    without("generate.md", "| canada.json [") do |dir|
      error = assert_raises(H::Missing) { H.uses(dir) }
      assert_match(/generate\.md: .*"canada\.json"/, error.message)
    end
  end

  def test_a_missing_file_or_cpu_line_fails
    Dir.mktmpdir do |dir|
      FileUtils.cp(Dir[File.join(RESULTS, "*.md")], dir)
      File.delete(File.join(dir, "records.md"))
      assert_raises(H::Missing) { H.uses(dir) }
      FileUtils.cp(File.join(RESULTS, "records.md"), dir)
      path = File.join(dir, "streaming.md")
      File.write(path, File.read(path, encoding: Encoding::UTF_8).sub(/^- CPU:.*\n/, ""))
      error = assert_raises(H::Missing) { H.uses(dir) }
      assert_match(/streaming\.md: no CPU line/, error.message)
    end
  end

  # bench/chart.rb as rake bench:chart runs it (it needs no gem).
  def chart(*args)
    out, status = Open3.capture2e(CLEAN_ENV, RbConfig.ruby, File.join(ROOT, "bench/chart.rb"), *args)
    [out.force_encoding(Encoding::UTF_8), status]
  end

  def test_bench_chart_prints_the_table_and_fails_on_a_missing_row
    skip_subprocess_under_valgrind
    without("views.md", "| Jetson (jetson/jbuilder) |") do |dir|
      out, status = chart("--results=#{dir}")
      refute status.success?
      assert_match(/views\.md: no table with a column "index ÷ gem" and a row "Jetson \(jetson\/jbuilder\)"/, out)
    end
    out, status = chart
    assert status.success?, out
    assert_includes out, H.markdown(uses)
  end
end
