# frozen_string_literal: true

require "fileutils"
require "open3"
require "rbconfig"

module JetsonBench
  # The floor of bench/generate.rb: JetsonBench::FloorWriter (floor/floor.c),
  # a C method called as Jetson.generate is that returns a fresh String of
  # the expected bytes and does nothing else: what a call costs that no
  # generator can go below.
  #
  # Built on first use with mkmf (`ruby extconf.rb && make`) into
  # tmp/bench-floor/RUBY_VERSION/ (git-ignored; one build per Ruby, as for
  # the extension), and again when floor.c or extconf.rb is newer than the
  # built library. If it cannot be built or loaded, a warning says why and
  # the benchmark runs without the floor.
  module Floor
    NAME = "jetson_bench_floor"
    LABEL = "floor (C method, fresh String)"
    # The second floor (FloorWriter#walk): the call, every value visited.
    WALK_LABEL = "walk floor (visits every value, writes nothing)"
    # The third (FloorWriter#write_walk): the walk, every String's bytes
    # written into the result in place, the rest of its length filled.
    WRITE_LABEL = "write floor (visits every value, writes every String's bytes)"
    SOURCE_DIR = File.expand_path("floor", __dir__)
    SOURCES = %w[floor.c page_cost.c page_cost.h extconf.rb].map { |f| File.join(SOURCE_DIR, f) }.freeze
    BUILD_DIR = File.expand_path("../../tmp/bench-floor/#{RUBY_VERSION}", __dir__)
    LIBRARY = File.join(BUILD_DIR, "#{NAME}.#{RbConfig::CONFIG['DLEXT']}")

    class << self
      # Why the floor is missing (nil while it is there or not yet tried).
      attr_reader :problem

      # True once FloorWriter is loaded; builds it first when needed. Tried
      # once per process.
      def available?
        return @available unless @available.nil?

        @available = begin
          build if stale?
          require LIBRARY
          true
        rescue StandardError, LoadError => e
          # One line: it is also every case's note (a footnote of the results).
          @problem = "the floor (bench/support/floor/floor.c) is not available, the benchmark runs without it: " \
                     "#{e.message.lines.first.to_s.strip}"
          warn "bench: WARNING: #{@problem}"
          warn e.output if e.respond_to?(:output) && !e.output.empty?
          false
        end
      end

      # A FloorWriter returning expected, or nil without the floor.
      def writer(expected) = available? ? FloorWriter.new(expected) : nil

      # What a page never written before costs here (floor/page_cost.c):
      # the median of `rounds` samples of fresh mappings of `bytes`, each key
      # of PageCost.sample's Hash; nil without the floor or off Linux.
      def page_costs(bytes: 5 * 1024 * 1024, rounds: 5)
        return nil unless available?

        samples = Array.new(rounds) { PageCost.sample(bytes) }
        return nil if samples.first.nil?

        samples.first.keys.to_h do |key|
          values = samples.map { _1[key] }
          [key, values.include?(nil) ? nil : Stats.median(values)]
        end
      end

      private

      def stale?
        return true unless File.exist?(LIBRARY)

        built = File.mtime(LIBRARY)
        SOURCES.any? { |src| File.mtime(src) > built }
      end

      # Two benchmark processes starting together build it once: the second
      # waits for the lock, then finds the library up to date.
      def build
        FileUtils.mkdir_p(BUILD_DIR)
        File.open(File.join(BUILD_DIR, ".lock"), File::RDWR | File::CREAT) do |lock|
          lock.flock(File::LOCK_EX)
          next unless stale?

          warn "bench: building the floor (bench/support/floor/floor.c) into #{BUILD_DIR}"
          # From scratch: mkmf's objects do not depend on the Makefile, so
          # new flags in extconf.rb would not rebuild them.
          FileUtils.rm_f(Dir.glob(File.join(BUILD_DIR, "*.o")) << LIBRARY)
          run(RbConfig.ruby, File.join(SOURCE_DIR, "extconf.rb"))
          run(ENV.fetch("MAKE", "make"))
        end
      end

      def run(*command)
        output, status = Open3.capture2e(*command, chdir: BUILD_DIR)
        return if status.success?

        how = status.exitstatus ? "exit #{status.exitstatus}" : status.to_s
        raise BuildError.new("`#{command.map { |c| File.basename(c) }.join(' ')}` failed in #{BUILD_DIR} (#{how})",
                             output.lines.last(15).join)
      end
    end

    # A step of the build that failed; output: the end of what it printed.
    class BuildError < StandardError
      attr_reader :output

      def initialize(message, output)
        super(message)
        @output = output
      end
    end
  end
end
