# frozen_string_literal: true

require "test_helper"
require "bigdecimal"
require "date"
require "stringio"
require "timeout"
require "support/no_growth"
require "support/mutated_containers"
require_relative "support/subprocess"

# Faults found by script/fuzz (each with the case that found it) and faults
# an app meets: a hostile option, an io that fails half-way, an interrupt.
class FaultsTest < Minitest::Test
  include JetsonSubprocess
  include AssertNoGrowth

  # script/fuzz --seed 1 --case 255: buffer_initial_length: 2**40 made the
  # first heap buffer 1 TiB (NoMemoryError) where json writes the document.
  def test_a_huge_buffer_initial_length_is_only_a_hint
    doc = ["x" * 100_000, { "k" => "y" * 5000 }]
    [2**40, (2**62) - 1].each do |length| # larger ones are TypeErrors, as in json
      assert_equal JSON.generate(doc), Jetson.generate(doc, buffer_initial_length: length)
      assert_equal JSON.generate(doc), Jetson::State.new(buffer_initial_length: length).generate(doc)
    end
  end

  # ---- helpers -----------------------------------------------------------

  def capture_error
    yield
    nil
  rescue Exception => e # rubocop:disable Lint/RescueException
    e
  end

  # An io that fails on its Nth write: by raising, or by taking half of it
  # and answering with the short count (Ruby's IO#write never does; an io
  # written in Ruby may).
  class FaultyIO
    attr_reader :out, :writes, :lost, :lost_at

    def initialize(fail_at, how)
      @fail_at = fail_at
      @how = how
      @out = String.new
      @writes = 0
    end

    # What the io holds with the part it refused put back where it belongs.
    def out_with_lost_part
      return @out unless @lost

      @out.byteslice(0, @lost_at) + @lost + @out.byteslice(@lost_at..)
    end

    def write(*chunks)
      chunks.sum do |chunk|
        @writes += 1
        if @writes == @fail_at && @how == :raise
          raise IOError, "disk full"
        elsif @writes == @fail_at
          @out << chunk.byteslice(0, chunk.bytesize / 2)
          @lost_at = @out.bytesize
          @lost = chunk.byteslice(chunk.bytesize / 2..)
          next chunk.bytesize / 2
        end
        @out << chunk
        chunk.bytesize
      end
    end

    def flush = self
  end

  BIG = Array.new(4000) { |i| { "id" => i, "name" => "name #{i} é", "tags" => %w[a b], "n" => i * 1.5 } }

  # ---- io.write raising or writing short half-way ----------------------

  def test_an_io_that_raises_half_way_through_dump_and_state_generate
    state = Jetson::State.new
    calls = { "dump" => ->(io) { Jetson.dump(BIG, io) }, "State#generate" => ->(io) { state.generate(BIG, io) } }
    calls.each do |name, call|
      json_io = FaultyIO.new(3, :raise)
      jetson_io = FaultyIO.new(3, :raise)
      json_error = capture_error { JSON.dump(BIG, json_io) }
      error = capture_error { call.call(jetson_io) }
      assert_instance_of IOError, error, name
      assert_equal json_error.message, error.message, name
      # What reached the io before the failure is a prefix of the document.
      assert jetson_io.out.bytesize.positive?, name
      assert JSON.generate(BIG).start_with?(jetson_io.out), name
      # The State and the process go on.
      assert_equal JSON.generate(BIG), state.generate(BIG), name
      assert_no_growth(name, runs: 60) { capture_error { call.call(FaultyIO.new(2, :raise)) } }
    end
  end

  # json ignores what io.write answers, and so does Jetson: a short write
  # loses exactly the part the io did not take (no retry, no duplicate, no
  # reordering), and the rest of the document still arrives. Where the chunks
  # split differs between the gems, so the lost bytes differ, not the rule.
  def test_an_io_that_writes_short_loses_only_what_it_did_not_take
    full = JSON.generate(BIG)
    {
      "json's dump" => ->(io) { JSON.dump(BIG, io) },
      "dump" => ->(io) { Jetson.dump(BIG, io) },
      "State#generate" => ->(io) { Jetson::State.new.generate(BIG, io) },
      "Writer" => lambda do |io|
        writer = Jetson::Writer.new(io)
        writer.push_array { BIG.each { |row| writer.push_value(row) } }
        writer.flush
      end
    }.each do |name, call|
      io = FaultyIO.new(2, :short)
      call.call(io)
      assert_operator io.writes, :>, 2, name
      assert_operator io.lost.bytesize, :>, 0, name
      assert_equal full.bytesize - io.lost.bytesize, io.out.bytesize, name
      assert_equal full, io.out_with_lost_part, name
    end
  end

  def test_a_writer_whose_io_raises_refuses_further_calls_and_is_collected
    io = FaultyIO.new(2, :raise)
    writer = Jetson::Writer.new(io)
    writer.push_array
    error = capture_error { BIG.each { |row| writer.push_value(row) } }
    assert_instance_of IOError, error
    assert JSON.generate(BIG).start_with?(io.out)
    [-> { writer.push_value(1) }, -> { writer.pop }, -> { writer.flush }, -> { writer.push_json("1") }].each do |call|
      assert_raises(Jetson::WriterError) { call.call }
    end
    assert_no_growth("writer with a failing io", runs: 60) do
      w = Jetson::Writer.new(FaultyIO.new(2, :raise))
      w.push_array
      capture_error { BIG.each { |row| w.push_value(row) } }
    end
  end

  # ---- interrupts: Thread#raise and Timeout -----------------------------

  # A value whose to_json is Ruby code that takes a moment: interrupts are
  # delivered there, inside a generate, a Writer's value or a Builder block.
  class Slow
    def initialize(i) = @i = i

    def to_json(*)
      Thread.pass
      sleep 0.0002 if (@i % 50).zero?
      @i.to_s
    end
  end

  SLOW = { "rows" => Array.new(20_000) { |i| [Slow.new(i), "s#{i}", { "k" => i }] } }.freeze
  SLOW_JSON = JSON.generate(SLOW)

  def test_timeout_interrupts_a_long_generate_and_the_state_goes_on
    state = Jetson::State.new(indent: " ", object_nl: "\n")
    [-> { Jetson.generate(SLOW) }, -> { state.generate(SLOW) }, -> { Jetson.dump(SLOW, StringIO.new) }].each do |call|
      assert_raises(Timeout::Error) { Timeout.timeout(0.02) { call.call } }
    end
    assert_equal SLOW_JSON, Jetson.generate(SLOW)
    assert_equal JSON.generate(SLOW, indent: " ", object_nl: "\n"), state.generate(SLOW)
    assert_no_growth("timeouts", runs: 40) { capture_error { Timeout.timeout(0.005) { state.generate(SLOW) } } }
  end

  def test_thread_raise_interrupts_a_generate_in_another_thread
    started = Queue.new
    worker = Thread.new do
      Thread.current.report_on_exception = false
      started << true
      Jetson.generate(SLOW)
    end
    started.pop
    sleep 0.01
    worker.raise(RuntimeError, "stop")
    error = assert_raises(RuntimeError) { worker.join }
    assert_equal "stop", error.message
    assert_equal SLOW_JSON, Jetson.generate(SLOW)
  end

  # A value that is interrupted is undone, as any value that raises: the
  # writer holds what it held before the call and goes on.
  def test_an_interrupted_writer_value_is_undone
    writer = Jetson::Writer.new
    writer.push_array
    writer.push_value("before")
    assert_raises(Timeout::Error) { Timeout.timeout(0.02) { writer.push_value(SLOW) } }
    writer.push_value("after")
    writer.pop
    assert_equal '["before","after"]', writer.to_s
  end

  # ---- GC.compact and GC.stress during every kind of value --------------

  # Moves everything it can, then answers with JSON text. json's reference
  # bytes are made from a twin that does not compact: a compaction takes tens
  # of milliseconds.
  class Compactor
    def initialize(text, compact) = (@text, @compact = text, compact)

    def to_json(*)
      GC.compact if @compact
      @text
    end
  end

  Point = Struct.new(:x, :y)

  def every_kind(compact: true)
    {
      "nil" => nil, "true" => true, "false" => false, "fixnum" => -42, "bignum" => 2**100, "float" => 2.5,
      "tiny" => 5e-324, "string" => +"text é \u2028 </script>", "ascii" => "plain", "latin1" => "caf\xE9".dup.force_encoding("ISO-8859-1"),
      "sym" => :static, "dsym" => :"dynamic #{rand(1)}", "frag" => Jetson::Fragment.new('{"raw":[1]}'),
      "time" => Time.utc(2024, 1, 2, 3, 4, 5), "date" => Date.new(2024, 1, 2), "struct" => Point.new(1, 2),
      "big_decimal" => BigDecimal("1.5"), "range" => (1..3), "object_keys" => { 1 => "i", :s => "s", nil => "n", 2.5 => "f" },
      "nested" => [[[{ "deep" => [Compactor.new("1", compact)] }]]], "compacting" => Compactor.new('"c"', compact),
      "big_string" => "x" * 100_000, "many" => Array.new(300) { |i| { "k#{i}" => [i, "v#{i}", (i % 150).zero? ? Compactor.new(i.to_s, compact) : i] } }
    }
  end

  # sort_keys compares the keys themselves, so its document leaves out the
  # Hash whose keys are of mixed classes (json cannot sort them either).
  OPTION_SETS = [{}, { script_safe: true }, { ascii_only: true }, { indent: "  ", space: " ", object_nl: "\n", array_nl: "\n" },
                 { sort_keys: true }].freeze

  def every_kind_for(opts, compact: true)
    doc = every_kind(compact: compact)
    opts[:sort_keys] ? doc.except("object_keys") : doc
  end

  def test_gc_compact_in_the_middle_of_every_kind_of_value
    OPTION_SETS.each do |opts|
      doc = every_kind_for(opts)
      expected = JSON.generate(every_kind_for(opts, compact: false), opts)
      compactions = GC.stat(:compact_count)
      assert_equal expected, Jetson.generate(doc, opts), opts.inspect
      assert_equal expected, Jetson::State.new(opts).generate(doc), opts.inspect
      io = StringIO.new
      Jetson::State.new(opts).generate(doc, io)
      assert_equal expected, io.string, opts.inspect
      writer = Jetson::Writer.new(**opts.except(:sort_keys))
      writer.push_object { doc.each { |k, v| writer.push_value(v, k) } }
      assert_equal JSON.generate(every_kind_for(opts, compact: false), opts.except(:sort_keys)), writer.to_s, opts.inspect
      assert_equal 4 * 4, GC.stat(:compact_count) - compactions, "a compaction in every Compactor"
    end
  end

  def test_gc_stress_during_every_kind_of_value
    OPTION_SETS.each do |opts|
      doc = every_kind_for(opts).except("many", "big_string", "compacting", "nested")
      expected = JSON.generate(doc, opts)
      GC.stress = true
      begin
        got = Jetson.generate(doc, opts)
      ensure
        GC.stress = false
      end
      assert_equal expected, got, opts.inspect
    end
  end

  # ---- callbacks that raise, mutate the document, or re-enter Jetson ------

  # Changes the document it sits in while Jetson writes it.
  class Mutator
    def initialize(how, target)
      @how = how
      @target = target
    end

    def to_json(*)
      case @how
      when :shrink then @target.replace([1])
      when :grow then 200.times { |i| @target << "grown #{i}" }
      when :clear then @target.clear
      when :delete then @target.delete(@target.keys.last)
      when :insert then @target["inserted"] = 1
      when :string then @target.replace("r" * 50_000)
      when :reencode then @target.force_encoding(Encoding::BINARY)
      end
      '"m"'
    end
  end

  def mutation_documents
    strings = %i[string reencode].map do |how|
      string = +"sibling é"
      [how, [Mutator.new(how, string), string, { string => string }]]
    end
    MutatedContainers.arrays(%i[shrink grow clear], 40, &Mutator.method(:new)) +
      MutatedContainers.hashes(%i[delete insert], &Mutator.method(:new)) + strings
  end

  # The outcome (bytes, or the error's class and message) is json's, for
  # mutations of every kind, through each entry point.
  def test_a_to_json_that_mutates_the_document_it_is_in
    mutation_documents.each do |how, _|
      entries = { "generate" => ->(m, d) { m.generate(d) }, "pretty" => ->(m, d) { m.pretty_generate(d) },
                  "dump into io" => ->(m, d) { io = StringIO.new; m.dump(d, io); io.string } }
      entries.each do |name, call|
        json = outcome { call.call(JSON, mutation_documents.to_h.fetch(how)) }
        jetson = outcome { call.call(Jetson, mutation_documents.to_h.fetch(how)) }
        assert_equal json, jetson, "#{how} through #{name}"
      end
    end
  end

  def outcome
    value = yield
    [:ok, value]
  rescue StandardError => e
    [e.class.name.sub(/\AJetson::/, "JSON::"), e.message.sub("Jetson", "JSON")]
  end

  # A to_json that calls Jetson again: with the State it was given, with a
  # new call, and (refused) on the Writer that is running it.
  class Reentrant
    def initialize(mode, writer = nil)
      @mode = mode
      @writer = writer
    end

    def to_json(state = nil, *)
      case @mode
      when :same_state then state.generate({ "inner" => [1, "two"] })
      when :new_call then Jetson.generate({ "inner" => [Reentrant.new(:same_state)] })
      when :writer then @writer.push_value(1)
      end
    end
  end

  def test_a_to_json_that_re_enters_jetson
    state = Jetson::State.new
    doc = [Reentrant.new(:same_state), Reentrant.new(:new_call)]
    expected = '[{"inner":[1,"two"]},{"inner":[{"inner":[1,"two"]}]}]'
    assert_equal expected, Jetson.generate(doc)
    assert_equal expected, state.generate(doc)
    assert_equal '[1,"x"]', state.generate([1, "x"])

    writer = Jetson::Writer.new
    writer.push_array
    assert_raises(Jetson::WriterError) { writer.push_value([Reentrant.new(:writer, writer)]) }
    writer.push_value("still usable")
    writer.pop
    assert_equal '["still usable"]', writer.to_s
  end

  def test_a_to_json_or_as_json_that_raises_leaves_nothing_behind
    raising = Class.new { def to_json(*) = raise(ArgumentError, "boom") }.new
    state = Jetson::State.new(strict: true, as_json: ->(_obj, _is_key) { raise KeyError, "as_json boom" })
    assert_no_growth("raising callbacks") do
      assert_raises(ArgumentError) { Jetson.generate(BIG.first(20) + [raising]) }
      assert_raises(KeyError) { state.generate([1, "a", Object.new]) }
    end
    assert_equal "[1]", state.generate([1])
  end

  # ---- threads and Ractors sharing what Jetson keeps --------------------

  def test_sixteen_threads_share_one_state
    state = Jetson::State.new(indent: "  ", space: " ", object_nl: "\n", array_nl: "\n", script_safe: true)
    docs = Array.new(16) { |t| Array.new(300) { |i| { "t" => t, "i" => i, "s" => "é#{i}</", :sym => [i * 0.5, nil] } } }
    expected = docs.map { |d| JSON.generate(d, indent: "  ", space: " ", object_nl: "\n", array_nl: "\n", script_safe: true) }
    results = Array.new(16) do |t|
      Thread.new { Array.new(20) { state.generate(docs[t]) }.uniq }
    end.map(&:value)
    results.each_with_index { |r, t| assert_equal [expected[t]], r, "thread #{t}" }
  end

  # Four Ractors at once, each with a State, a Writer and the module
  # functions of its own, many documents each: what each gives is what the
  # main Ractor gives for the same documents.
  RACTOR_SCRIPT = <<~RUBY
    def docs(n)
      Array.new(60) { |i| { "r" => n, "i" => i, "s" => "é\u2028\#{i}" * (i % 7), :k => [i * 0.25, 2**(i + 40), nil, :sym] } }
    end

    def run(n)
      state = Jetson::State.new(indent: " ", object_nl: "\n", script_safe: true)
      docs(n).each_slice(3).flat_map do |batch|
        writer = Jetson::Writer.new
        writer.push_array { batch.each { |doc| writer.push_value(doc) } }
        batch.map { |doc| Jetson.generate(doc) + state.generate(doc) + Jetson.pretty_generate(doc) } + [writer.to_s]
      end.join("|")
    end

    ractors = Array.new(4) { |n| Ractor.new(n) { |m| Array.new(10) { run(m) }.uniq } }
    results = ractors.map { |r| ractor_value(r) }
    print results.each_with_index.map { |r, n| r == [run(n)] ? "same" : "differs" }.join(",")
  RUBY

  def test_ractors_generate_in_parallel
    assert_equal "same,same,same,same", ractor_output(RACTOR_SCRIPT)
  end
end
