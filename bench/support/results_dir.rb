# frozen_string_literal: true

require "fileutils"

module JetsonBench
  # The path a benchmark writes its results file NAME to: bench/results/, or
  # the directory JETSON_BENCH_RESULTS names. `rake bench` (the quick look)
  # sets it to tmp/bench-quick/, so that its short runs never overwrite the
  # committed results of the full runs.
  def self.results_path(name)
    dir = ENV["JETSON_BENCH_RESULTS"].to_s.strip
    dir = dir.empty? ? File.expand_path("../results", __dir__) : File.expand_path(dir)
    FileUtils.mkdir_p(dir)
    File.join(dir, name)
  end
end
