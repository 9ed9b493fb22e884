# frozen_string_literal: true

# What Rails mode's stock checks cost per call (ext/jetson/stock_memo.c: is
# this class's as_json, serializable_hash, reader... still ActiveSupport's?)
# on two calls they dominate: `record.to_json` of one ActiveRecord record on
# SQLite, and `ActiveSupport::JSON.encode` of a small Hash (a Time, a Float, a
# Date, a BigDecimal), Jetson::RailsEncoder installed.
#
#   bundle exec ruby bench/stock_checks.rb [--rounds=N] [--no-callgrind] [--no-write] \
#     [CONTENDER ...]
#
# A CONTENDER is LABEL=RUBY[,yjit][,ext=PATH][,lib=DIR]: a Ruby binary, YJIT
# or not, the extension to load (JETSON_EXTENSION) and the lib/ to take
# Jetson's Ruby from (a scratch checkout of an older commit, which must hold
# its own build as lib/jetson/jetson.so). Without any, this checkout's builds
# on the Rubies found: /usr/bin/ruby and /opt/rubies/*/bin/ruby (+ YJIT).
#
# Each contender runs in child processes (a build per Ruby cannot share one):
# per round, one child per contender in an order rotated every round, each
# timing SLICES slices of CALLS calls after a warm-up, GC.start before each
# slice; µs per call is the median of the rounds' medians, with the rounds'
# min-max. Beside it, under callgrind (no JIT), the instructions per call of
# the whole call and of jt_stock_memo_ask alone (--toggle-collect: the stock
# checks, with whatever they call), and the questions sent to Ruby per call.
# Results: bench/results/stock-checks.md.

require "rbconfig"
require "json"
require "tmpdir"
require "open3"

module StockChecksBench
  module_function

  CALLS = 2_000
  SLICES = 5
  CG_CALLS = 200
  CASES = %w[record hash].freeze

  # --- the child: one Ruby, one build -------------------------------------

  def child_setup(lib)
    if lib
      # An older checkout: its Jetson before bench/support/setup adds ours.
      $LOAD_PATH.unshift(lib)
      require "jetson"
      require "jetson/rails"
    end
    require_relative "support/setup"
    require "jetson/rails"
    require "active_record"
    require "bigdecimal"
    ActiveRecord::Base.logger = nil
    ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: ":memory:")
    ActiveRecord::Base.connection.create_table(:posts) do |t|
      t.string :title
      t.integer :views
      t.boolean :published
      t.timestamps
    end
    Object.const_set(:BenchPost, Class.new(ActiveRecord::Base) { self.table_name = "posts" })
    BenchPost.create!(title: "hello", views: 3, published: true)
    Jetson::Rails.install!
    record = BenchPost.first
    hash = { "at" => Time.utc(2026, 1, 2, 3, 4, 5), "f" => 1.5, "d" => Date.new(2026, 1, 2),
             "n" => BigDecimal("2.5"), "s" => "x" }
    { "record" => -> { record.to_json }, "hash" => -> { ActiveSupport::JSON.encode(hash) } }
  end

  # Questions sent to Ruby (Jetson::Rails.memo_answer) per call, warm.
  def asks_per_call(call)
    asks = 0
    Jetson::Rails.singleton_class.prepend(Module.new { define_method(:memo_answer) { |*a| asks += 1; super(*a) } })
    10.times { call.call }
    asks = 0
    100.times { call.call }
    asks / 100.0
  end

  def child_time(cases)
    cases.to_h do |name, call|
      200.times { call.call }
      slices = Array.new(SLICES) do
        GC.start
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        CALLS.times { call.call }
        (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1e6 / CALLS
      end
      [name, slices.sort[SLICES / 2]]
    end
  end

  # Between two Process.times (callgrind's --dump-before marker): CG_CALLS calls.
  def child_callgrind(cases, name)
    call = cases.fetch(name)
    20.times { call.call }
    GC.start
    Process.times
    CG_CALLS.times { call.call }
    Process.times
  end

  def child(argv)
    mode = argv.shift
    lib = ENV["STOCK_BENCH_LIB"]
    cases = child_setup(lib && !lib.empty? ? lib : nil)
    result = case mode
             when "time" then child_time(cases)
             when "asks" then cases.transform_values { asks_per_call(_1) }
             when "callgrind" then child_callgrind(cases, argv.shift) && {}
             end
    ext = $LOADED_FEATURES.find { _1.end_with?("/jetson.so") }
    watch = defined?(Jetson::MethodWatch) ? "watch" : "no watch"
    puts "result: #{JSON.generate(result.merge('ruby' => "#{RUBY_DESCRIPTION}; #{ext} (#{watch})"))}"
  end

  # --- the parent ---------------------------------------------------------

  Contender = Struct.new(:label, :ruby, :yjit, :ext, :lib) do
    def env
      # The child's own Bundler (bundle exec's RUBYOPT and RUBYLIB name this Ruby's).
      { "JETSON_EXTENSION" => ext, "STOCK_BENCH_LIB" => lib, "RUBYOPT" => "-rbundler/setup", "RUBYLIB" => nil,
        "BUNDLER_SETUP" => nil }
    end

    def command(*args, jit: yjit) = [ruby, *(jit ? ["--yjit"] : []), __FILE__, "--child", *args]
  end

  def parse_contender(spec)
    label, rest = spec.split("=", 2)
    ruby, *opts = rest.split(",")
    c = Contender.new(label, ruby, false, nil, nil)
    opts.each do |o|
      key, value = o.split("=", 2)
      case key
      when "yjit" then c.yjit = true
      when "ext" then c.ext = File.expand_path(value)
      when "lib" then c.lib = File.expand_path(value)
      else abort "unknown contender option #{o.inspect}"
      end
    end
    c
  end

  def default_contenders
    root = File.expand_path("..", __dir__)
    rubies = ["/usr/bin/ruby", *Dir["/opt/rubies/*/bin/ruby"].sort].select { File.executable?(_1) }
    rubies.flat_map do |ruby|
      version = `#{ruby} -e 'print RUBY_VERSION'`
      ext = Dir[File.join(root, "tmp/*/jetson/#{version}/jetson.so")].first || next
      yjit = `#{ruby} -e 'print defined?(RubyVM::YJIT) ? 1 : 0'` == "1"
      [Contender.new("#{version}", ruby, false, ext, nil), (Contender.new("#{version} +YJIT", ruby, true, ext, nil) if yjit)]
    end.compact
  end

  def run_child(contender, *args, jit: contender.yjit, prefix: [])
    out, err, status = Open3.capture3(contender.env, *prefix, *contender.command(*args, jit: jit),
                                      chdir: File.expand_path("..", __dir__))
    line = out.lines.reverse.find { _1.start_with?("result: ") }
    abort "#{contender.label}: child failed (#{status}):\n#{err.lines.last(15).join}" unless status.success? && line
    JSON.parse(line.delete_prefix("result: "))
  end

  def callgrind_ir(contender, name, only = nil)
    Dir.mktmpdir("jetson-stock-cg") do |dir|
      prefix = ["valgrind", "--tool=callgrind", "--dump-before=rb_proc_times", "--callgrind-out-file=#{dir}/cg.out",
                *(only ? ["--toggle-collect=#{only}"] : [])]
      run_child(contender, "callgrind", name, jit: false, prefix: prefix)
      # Dumped before each marker: part 1 is the boot and warm-up, part 2
      # the timed calls (the rest is in the file without a part number).
      text = File.read("#{dir}/cg.out.2")
      Integer(text[/^(?:summary|totals): (\d+)/, 1]).fdiv(CG_CALLS)
    end
  end

  def median(values) = values.sort[values.size / 2]

  def run(argv)
    rounds = Integer(argv.find { _1.start_with?("--rounds=") }&.split("=", 2)&.last || 7)
    contenders = argv.reject { _1.start_with?("--") }.map { parse_contender(_1) }
    contenders = default_contenders if contenders.empty?
    times = contenders.to_h { [_1.label, CASES.to_h { |c| [c, []] }] }
    descriptions = {}
    rounds.times do |r|
      contenders.rotate(r).each do |c|
        result = run_child(c, "time")
        descriptions[c.label] = result["ruby"]
        CASES.each { times[c.label][_1] << result[_1] }
      end
      puts "round #{r + 1}/#{rounds} done"
    end
    asks = contenders.to_h { [_1.label, run_child(_1, "asks")] }
    ir = {}
    unless argv.include?("--no-callgrind")
      contenders.reject(&:yjit).each do |c|
        ir[c.label] = CASES.to_h { |name| [name, [callgrind_ir(c, name), callgrind_ir(c, name, "jt_stock_memo_ask")]] }
        puts "callgrind #{c.label} done"
      end
    end
    require_relative "support/report"
    command = "bundle exec ruby bench/stock_checks.rb #{argv.join(' ')}".strip
    JetsonBench::Report.publish(report(contenders, times, asks, ir, descriptions, rounds, command), "stock-checks.md", argv)
  end

  def report(contenders, times, asks, ir, descriptions, rounds, command)
    out = +JetsonBench::Report.head("Rails mode's stock checks per call", command)
    out << "- #{rounds} rounds, a child process per contender and round (order rotated), #{SLICES} slices of #{CALLS} " \
           "calls each after a warm-up, GC.start before each slice; µs per call: median of the rounds' medians " \
           "(min-max of the rounds); instructions: callgrind, #{CG_CALLS} warm calls, no JIT\n"
    contenders.each { out << "- **#{_1.label}**: #{descriptions[_1.label]}\n" }
    out << "\n| contender | case | µs/call | Ruby asks/call | Ir/call | Ir/call in stock checks |\n"
    out << "| :--- | :--- | ---: | ---: | ---: | ---: |\n"
    contenders.each do |c|
      CASES.each do |name|
        t = times[c.label][name]
        total, memo = ir.dig(c.label, name)
        out << format("| %s | %s | %.2f (%.2f-%.2f) | %.2f | %s | %s |\n", c.label, name, median(t), t.min, t.max,
                      asks[c.label][name], total ? total.round.to_s : "-", memo ? memo.round.to_s : "-")
      end
    end
    out
  end
end

if ARGV.first == "--child"
  ARGV.shift
  StockChecksBench.child(ARGV)
elsif $PROGRAM_NAME == __FILE__
  $stdout.sync = true
  StockChecksBench.run(ARGV)
end
