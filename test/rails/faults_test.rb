# frozen_string_literal: true

require "test_helper"
require "timeout"
require "support/no_growth"
require "support/mutated_containers"
require "support/rails_oracle"
require "jetson/builder"
require "active_support/core_ext/numeric/time"

# Faults in Rails mode: a RailsEncoder and a Jetson::Builder template shared
# by 16 threads, interrupted by Timeout and Thread#raise, and as_json or
# template blocks that raise, mutate the document they are in or re-enter
# Jetson. The reference is ActiveSupport's own encoder (the one the app would
# have, see RailsOracle) in this process; afterwards the encoder and the template go on, and nothing
# is left behind.
class RailsFaultsTest < Minitest::Test
  include AssertNoGrowth
  STOCK = RailsOracle.stock

  def setup
    @saved_zone = Time.zone
    Time.zone = "Europe/Berlin"
  end

  def teardown
    Time.zone = @saved_zone
  end

  def outcome
    [:ok, yield]
  rescue StandardError => e
    [e.class.name, e.message]
  end

  # A record-like object: its as_json is ActiveSupport's for an object
  # (its instance variables), or one of its own.
  Row = Struct.new(:id, :name, :at, :tags, :score) do
    def as_json(options = nil)
      { "id" => id, "name" => name, "at" => at, "tags" => tags, "score" => score }.as_json(options)
    end
  end

  def rows(count, salt = 0)
    Array.new(count) do |i|
      Row.new(i + salt, "row #{i} <é> \u2028", Time.utc(2024, 1, 1) + i.hours + (i * 0.001), %i[a b], BigDecimal(i) / 7)
    end
  end

  # ---- one RailsEncoder, one template, 16 threads -----------------------

  def test_sixteen_threads_share_one_rails_encoder
    encoder = Jetson::RailsEncoder.new(only: %w[id name at tags])
    # An Array hands its options to every element's as_json.
    docs = Array.new(16) { |t| rows(200, t) + [{ "t" => t }, Time.zone.local(2024, 3, 31, 1, 59)] }
    expected = docs.map { |doc| STOCK.new(only: %w[id name at tags]).encode(doc) }
    assert_includes expected.first, '"tags":["a","b"]'
    refute_includes expected.first, "score"
    results = Array.new(16) { |t| Thread.new { Array.new(20) { encoder.encode(docs[t]) }.uniq } }.map(&:value)
    results.each_with_index { |r, t| assert_equal [expected[t]], r, "thread #{t}" }
  end

  # The template, as an app holds one: a block run by every render.
  TEMPLATE = lambda do |json, rows|
    json.count rows.size
    json.rows rows do |row|
      json.extract! row, :id, :name, :at
      json.tags row.tags
      json.more { json.score row.score } if row.id.even?
    end
  end

  def as_hashes(rows)
    { "count" => rows.size,
      "rows" => rows.map do |row|
        { "id" => row.id, "name" => row.name, "at" => row.at, "tags" => row.tags }
          .merge(row.id.even? ? { "more" => { "score" => row.score } } : {})
      end }
  end

  def render(rows) = Jetson::Builder.new { |json| TEMPLATE.call(json, rows) }.target!

  def test_sixteen_threads_render_one_template
    data = Array.new(16) { |t| rows(150, t * 1000) }
    expected = data.map { |r| STOCK.new.encode(as_hashes(r)) }
    assert_equal expected.first, render(data.first)
    results = Array.new(16) { |t| Thread.new { Array.new(20) { render(data[t]) }.uniq } }.map(&:value)
    results.each_with_index { |r, t| assert_equal [expected[t]], r, "thread #{t}" }
  end

  # ---- interrupts -----------------------------------------------------------

  # Takes a moment in its as_json (and so in a template that reads it).
  class SlowRow < Row
    def as_json(options = nil)
      Thread.pass
      sleep 0.0002 if (id % 50).zero?
      super
    end

    def name
      Thread.pass
      sleep 0.0002 if (id % 50).zero?
      super
    end
  end

  def slow_rows = Array.new(10_000) { |i| SlowRow.new(i, "n#{i}", Time.utc(2024), [], i) }

  def test_timeout_interrupts_an_encode_and_a_template_render
    encoder = Jetson::RailsEncoder.new
    slow = slow_rows
    assert_raises(Timeout::Error) { Timeout.timeout(0.02) { encoder.encode(slow) } }
    assert_raises(Timeout::Error) { Timeout.timeout(0.02) { render(slow) } }
    assert_equal STOCK.new.encode(slow.first(300)), encoder.encode(slow.first(300))
    assert_equal STOCK.new.encode(as_hashes(slow.first(300))), render(slow.first(300))
    assert_no_growth("interrupted encodes and renders", runs: 30) do
      Timeout.timeout(0.003) { encoder.encode(slow) }
    rescue Timeout::Error
      begin
        Timeout.timeout(0.003) { render(slow) }
      rescue Timeout::Error
        nil
      end
    end
  end

  def test_thread_raise_interrupts_a_template_render
    started = Queue.new
    worker = Thread.new do
      Thread.current.report_on_exception = false
      Jetson::Builder.new do |json|
        started << true
        TEMPLATE.call(json, slow_rows)
      end.target!
    end
    started.pop
    sleep 0.01
    worker.raise(RuntimeError, "stop")
    assert_equal "stop", assert_raises(RuntimeError) { worker.join }.message
    assert_equal STOCK.new.encode(as_hashes(rows(20))), render(rows(20))
  end

  # ---- as_json and template blocks that raise, mutate or re-enter -----------

  class Hostile
    def initialize(how, target = nil)
      @how = how
      @target = target
    end

    def as_json(options = nil)
      case @how
      when :raise then raise ArgumentError, "as_json failed"
      when :shrink then @target.replace([1])
      when :grow then 50.times { |i| @target << "grown #{i}" }
      when :delete then @target.delete(@target.keys.last)
      when :insert then @target["inserted"] = 1
      when :reenter then return { "inner" => ActiveSupport::JSON.encode([Time.utc(2024), { a: 1 }]) }
      when :reenter_same then return { "inner" => @target.encode({ "x" => [1.5, :y] }) }
      end
      { "how" => @how.to_s, "options" => options&.keys&.map(&:to_s) }
    end
  end

  def hostile_documents
    MutatedContainers.arrays(%i[raise shrink grow], 30, &Hostile.method(:new)) +
      MutatedContainers.hashes(%i[delete insert], key: :to_sym.to_proc, &Hostile.method(:new)) +
      [[:reenter, [Hostile.new(:reenter), Time.zone.local(2024, 6, 1)]]]
  end

  def test_an_as_json_that_raises_mutates_or_re_enters
    hostile_documents.each_with_index do |(how, _), i|
      expected = outcome { STOCK.new.encode(hostile_documents[i][1]) }
      assert_equal expected, outcome { Jetson::RailsEncoder.new.encode(hostile_documents[i][1]) }, how.to_s
    end
    encoder = Jetson::RailsEncoder.new
    doc = [Hostile.new(:reenter_same, encoder), 1]
    assert_equal STOCK.new.encode([{ "inner" => STOCK.new.encode({ "x" => [1.5, :y] }) }, 1]), encoder.encode(doc)
    assert_no_growth("raising as_json") { outcome { encoder.encode(hostile_documents.first[1]) } }
  end

  # A block that raises leaves the builder's document as it was before the
  # call the block belonged to (Jbuilder's Hash tree is left half-built;
  # its callers do not go on after an error, and nothing here depends on
  # either) and leaks nothing; a block that builds another document with a
  # second builder, or that encodes, is a plain nested call.
  def test_template_blocks_that_raise_or_re_enter
    assert_no_growth("raising template blocks") do
      error = assert_raises(KeyError) do
        Jetson::Builder.new do |json|
          json.rows(rows(30)) { |row| row.id == 20 ? raise(KeyError, "no such key") : json.id(row.id) }
        end
      end
      assert_equal "no such key", error.message
    end
    nested = Jetson::Builder.new do |json|
      json.rows(rows(3)) do |row|
        json.id row.id
        json.inner Jetson::Builder.new { |inner| inner.name row.name }.attributes!
        json.text Jetson::Builder.encode { |inner| inner.at row.at }
        json.encoded Jetson::RailsEncoder.new.encode(row)
      end
    end.target!
    expected = { "rows" => rows(3).map do |row|
      { "id" => row.id, "inner" => { "name" => row.name }, "text" => STOCK.new.encode({ "at" => row.at }),
        "encoded" => STOCK.new.encode(row) }
    end }
    assert_equal STOCK.new.encode(expected), nested
  end

  # A block that changes the collection it is iterating: what Ruby's
  # iteration does (the builder walks the collection with each), as a Hash
  # tree built by the same block gives it.
  def test_a_template_block_that_mutates_its_collection
    list = rows(10)
    built = Jetson::Builder.new do |json|
      json.array!(list) do |row|
        list.pop
        json.id row.id
      end
    end.target!
    list = rows(10)
    hashes = []
    list.each do |row|
      list.pop
      hashes << { "id" => row.id }
    end
    assert_equal STOCK.new.encode(hashes), built
    assert_equal 5, JSON.parse(built).size, "the block's pops end the iteration half-way"
  end
end
