# frozen_string_literal: true

module JetsonBench
  # Command line + environment configuration shared by the bench scripts.
  #
  #   ruby --yjit bench/SCRIPT.rb [--quick] [--warmup=S] [--time=S] [--rounds=N]
  #                               [--no-alloc] [--no-write] [--list] [FILTER ...]
  #   bench/generate.rb also: --callgrind[=N] (instructions per call, see
  #   JetsonBench::Callgrind) and --callgrind-child=N (internal: the process
  #   the parent runs under valgrind).
  #
  # FILTER: case-insensitive substring of a case name; several filters are OR-ed.
  # Env: JETSON_BENCH_WARMUP / JETSON_BENCH_TIME (seconds, override the defaults
  # and --quick, but not --warmup=/--time=), JETSON_BENCH_ROUNDS,
  # JETSON_BENCH_DATA (data dir).
  class Options
    DEFAULT_WARMUP = 0.2
    DEFAULT_TIME = 0.4
    DEFAULT_ROUNDS = 9
    QUICK_WARMUP = 0.2
    QUICK_TIME = 0.3
    QUICK_ROUNDS = 3

    DEFAULT_CALLGRIND_CALLS = 20

    attr_reader :warmup, :time, :rounds, :filters, :quick, :alloc, :write, :list, :verbose,
                :callgrind, :callgrind_child

    def self.parse(argv = ARGV, env = ENV) = new(argv, env)

    # A benchmark script's options; with --help, its usage (usage's text,
    # through the block where the script words it otherwise) is printed
    # and the script exits.
    def self.parse_or_usage(script, callgrind: false, argv: ARGV, env: ENV)
      options = parse(argv, env)
      return options unless options.help?

      text = usage(script, callgrind: callgrind)
      puts block_given? ? yield(text) : text
      exit
    end

    def initialize(argv, env)
      @quick = false
      @alloc = true
      @write = true
      @list = false
      @filters = []
      warmup = time = rounds = nil
      argv.each do |arg|
        case arg
        when "--quick" then @quick = true
        when /\A--warmup=(.+)\z/ then warmup = Float(Regexp.last_match(1))
        when /\A--time=(.+)\z/ then time = Float(Regexp.last_match(1))
        when /\A--rounds=(\d+)\z/ then rounds = Integer(Regexp.last_match(1))
        when "--no-alloc" then @alloc = false
        when "--no-write" then @write = false
        when "--verbose" then @verbose = true
        when "--list" then @list = true
        when "--oj" then @oj = true
        when "--callgrind" then @callgrind = DEFAULT_CALLGRIND_CALLS
        when /\A--callgrind=(\d+)\z/ then @callgrind = positive(Regexp.last_match(1), arg)
        when /\A--callgrind-child=(\d+)\z/ then @callgrind_child = positive(Regexp.last_match(1), arg)
        when "-h", "--help" then @help = true
        when /\A-/ then raise ArgumentError, "unknown option #{arg} (try --help)"
        else @filters << arg.downcase
        end
      end
      @warmup = warmup || float_env(env, "JETSON_BENCH_WARMUP") || (@quick ? QUICK_WARMUP : DEFAULT_WARMUP)
      @time = time || float_env(env, "JETSON_BENCH_TIME") || (@quick ? QUICK_TIME : DEFAULT_TIME)
      @rounds = [rounds || float_env(env, "JETSON_BENCH_ROUNDS")&.to_i || (@quick ? QUICK_ROUNDS : DEFAULT_ROUNDS), 1].max
    end

    def help? = !!@help

    # --oj: the app calls Oj.optimize_rails (bench/builder.rb).
    def oj? = !!@oj

    def match?(case_name)
      @filters.empty? || @filters.any? { |f| case_name.downcase.include?(f) }
    end

    def filtered? = !@filters.empty?

    def describe
      s = "warmup #{@warmup}s, time #{@time}s per contender"
      s += ", #{@rounds} rounds (median per contender; ratios paired by round)" if @rounds > 1
      s += " (--quick)" if @quick
      s += ", filter: #{@filters.join(' | ')}" if filtered?
      s
    end

    CALLGRIND_USAGE = <<~TXT.gsub(/^/, "  ")
      --callgrind[=N]  instead of timing: instructions per call of every contender, counted by
                   valgrind --tool=callgrind (no JIT) over N calls each (default #{DEFAULT_CALLGRIND_CALLS}),
                   one valgrind process per case; results in bench/results/generate-callgrind.md
    TXT

    # callgrind: also describe --callgrind (bench/generate.rb only)
    def self.usage(script, callgrind: false)
      <<~TXT
        usage: bundle exec ruby --yjit #{script} [--quick] [--warmup=S] [--time=S] [--rounds=N] [--verbose] [--no-alloc] [--no-write] [--list]#{callgrind ? ' [--callgrind[=N]]' : ''} [FILTER ...]
          --quick      #{QUICK_ROUNDS} rounds of warmup #{QUICK_WARMUP}s, time #{QUICK_TIME}s unless
                       JETSON_BENCH_WARMUP/TIME/ROUNDS are set
          --rounds=N   rounds per case (default #{DEFAULT_ROUNDS}, warmup #{DEFAULT_WARMUP}s and time #{DEFAULT_TIME}s
                       per contender per round); the contender order rotates every round; a
                       contender's i/s is its median round, ratios are medians of per-round ratios
          --verbose    print benchmark-ips' output for every round, not only the first
          --no-alloc   skip the allocation measurements
          --no-write   do not write bench/results/*.md
          --list       list the case names and exit
        #{callgrind ? CALLGRIND_USAGE : ''}  FILTER       case-insensitive substring of case names (OR-ed)
        env: JETSON_BENCH_WARMUP, JETSON_BENCH_TIME (seconds), JETSON_BENCH_ROUNDS, JETSON_BENCH_DATA (data dir)
      TXT
    end

    private

    def positive(digits, arg)
      n = Integer(digits, 10)
      raise ArgumentError, "#{arg}: N must be at least 1" if n < 1

      n
    end

    def float_env(env, name)
      v = env[name]
      v.nil? || v.strip.empty? ? nil : Float(v)
    end
  end
end
