# frozen_string_literal: true

require "etc"
require "rbconfig"

module JetsonBench
  # The process a timed bench/generate.rb run measures in: one CPU, and a
  # heap the size of an application's.
  #
  # Two things outside the code under test split the small cases' timings
  # into two modes across processes (small mixed at about 7M or about 3.8M
  # calls per second, every contender alike; or near 1.3M):
  #
  # - The CPU. This VM's two vCPUs do not run at the same speed at the same
  #   time (the host's other load), and an unpinned process runs on either,
  #   or moves between them within a run. Pinned to one, six runs of six gave
  #   that CPU's speed, and a process that moves no longer mixes two speeds
  #   into one contender's rounds.
  # - The heap. A script's heap is a few pages per slot size; after the
  #   GC.start before each timed slice, a minor collection finds no free
  #   slots, and Ruby runs a major one (latest_gc_info major_by: :nofree)
  #   every few thousand calls: 20-27 majors in a 0.4 s slice instead of 1.
  #   An application's heap (hundreds of thousands of live objects) does not
  #   get there. RUBY_GC_HEAP_<n>_INIT_SLOTS gives every size pool room
  #   from the start; Ruby keeps at least that many slots.
  #
  # Both are set by running the script again (exec) with them, before any
  # document is loaded. JETSON_BENCH_UNPINNED=1 leaves the process as it was
  # started; GC settings already in the environment are kept.
  module SteadyProcess
    MARK = "JETSON_BENCH_STEADY"
    HEAP_SLOTS = 100_000
    SIZE_POOLS = 5 # 40, 80, 160, 320 and 640-byte slots (Ruby 3.3 and later)

    module_function

    # Does not return unless the process is already steady (or asked not to be).
    def ensure!(argv)
      return if ENV[MARK] || ENV["JETSON_BENCH_UNPINNED"] == "1"

      env = { MARK => describe }
      heap_env.each { |k, v| env[k] = v unless ENV.key?(k) }
      command = [RbConfig.ruby]
      command << "--yjit" if Environment.yjit?
      command += [File.expand_path($PROGRAM_NAME), *argv]
      cpu = pinned_cpu
      command = ["taskset", "-c", cpu.to_s, *command] if cpu
      $stdout.flush
      exec(env, *command)
    end

    # What the results file says about the process.
    def fact
      ENV[MARK] || "as started (JETSON_BENCH_UNPINNED=1): no CPU pinning, Ruby's default heap"
    end

    def heap_env
      # Ruby 3.1 and 3.2 have one heap setting for all slots.
      (0...SIZE_POOLS).to_h { |i| ["RUBY_GC_HEAP_#{i}_INIT_SLOTS", HEAP_SLOTS.to_s] }
                      .merge("RUBY_GC_HEAP_INIT_SLOTS" => (HEAP_SLOTS * SIZE_POOLS).to_s)
    end

    # The last CPU, as bench/deploy.rb pins puma; nil where taskset is
    # missing or there is one CPU.
    def pinned_cpu
      return nil if Etc.nprocessors < 2
      return nil unless ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).any? { |d| File.executable?(File.join(d, "taskset")) }

      Etc.nprocessors - 1
    end

    def describe
      cpu = pinned_cpu
      "#{cpu ? "pinned to CPU #{cpu} (taskset)" : 'not pinned (no taskset or one CPU)'}; " \
        "RUBY_GC_HEAP_<n>_INIT_SLOTS=#{HEAP_SLOTS} for every slot size"
    end
  end
end
