# frozen_string_literal: true

# What the tests of the output buffer's kept buffers share
# (large_document_test.rb: the spare and the sized result of documents over
# 1 MiB; mid_size_document_test.rb: the scratch of documents up to 1 MiB):
# a value whose to_json calls a generator from inside a document, and the
# checks that compaction and Ractors leave each call a buffer of its own.
module DocumentBuffers
  # Calls JSON's or Jetson's generate from inside to_json, so that the same
  # object gives the json gem's bytes and Jetson's.
  class Nested
    attr_accessor :generator

    def initialize(inner, &before)
      @inner = inner
      @before = before
    end

    def to_json(*)
      @before&.call
      generator.generate(@inner)
    end
  end

  # doc with every Nested in it calling `generator`.
  def with_generator(doc, generator)
    doc.grep(Nested).each { |n| n.generator = generator }
    doc
  end

  # outer holds Nested values whose to_json generates inner: the json gem's
  # bytes, twice, and inner generated alone afterwards still whole.
  def assert_generates_with_nested_calls(outer, inner)
    expected = JSON.generate(with_generator(outer, JSON))
    with_generator(outer, Jetson)
    2.times { assert_equal expected, Jetson.generate(outer) }
    assert_equal JSON.generate(inner), Jetson.generate(inner)
  end

  # `before` and then a to_json that raises, three times (a collection after
  # the second): the error is the to_json's, and each time the document
  # after.call(i) comes out whole, whatever buffer the failed call held.
  def assert_recovers_from_a_raising_to_json(before, &after)
    failing = Nested.new([]) { raise ArgumentError, "to_json failed" }
    failing.generator = Jetson
    doc = [before, failing]
    3.times do |i|
      error = assert_raises(ArgumentError) { Jetson.generate(doc) }
      assert_equal "to_json failed", error.message
      GC.start if i == 1
      next_doc = after.call(i)
      assert_equal JSON.generate(next_doc), Jetson.generate(next_doc)
    end
  end

  # Each of docs (holding a Nested that passes the thread) generated `calls`
  # times in a thread of its own, the threads switching mid-document: every
  # output json's.
  def assert_threads_generate_their_own(docs, calls)
    expected = docs.map { |doc| JSON.generate(with_generator(doc, JSON)) }
    docs.each { |doc| with_generator(doc, Jetson) }
    outputs = docs.map { |doc| Thread.new { Array.new(calls) { Jetson.generate(doc) } } }.map(&:value)
    outputs.each_with_index do |results, t|
      results.each { |out| assert_equal expected[t], out, "thread #{t}" }
    end
  end

  def assert_generates_across_compaction(doc)
    skip "GC compaction unavailable" unless GC.respond_to?(:verify_compaction_references)
    expected = JSON.generate(doc)
    assert_equal expected, Jetson.generate(doc)
    GC.verify_compaction_references(double_heap: true, toward: :empty)
    assert_equal expected, Jetson.generate(doc)
    GC.compact
    assert_equal expected, Jetson.generate(doc)
  end

  # Two Ractors each generate the document `doc_source` (Ruby code with `i`,
  # the Ractor's number) three times: one output each, json's.
  def assert_ractors_generate_side_by_side(doc_source)
    output = ractor_output(<<~RUBY)
      ractors = 2.times.map do |n|
        Ractor.new(n) do |i|
          doc = #{doc_source}
          Array.new(3) { Jetson.generate(doc) }.uniq
        end
      end
      print ractors.map { |r| (outs = ractor_value(r)).size == 1 ? outs[0] : "different outputs" }.join("\\n")
    RUBY
    expected = 2.times.map { |i| JSON.generate(eval(doc_source)) } # rubocop:disable Security/Eval
    assert_equal expected.join("\n"), output
  end

  # The tests both files run, each on documents of its own range: the
  # including class's SIZES says how large (nested: the inner document, and
  # the outer one's parts before and after it; raising: the document before
  # the failing to_json, and the one generated after; threads: how many,
  # each document's parts before and after the switch, and the calls each
  # thread makes). doc_of(bytes, tag) is the class's.
  module Walks
    def test_generate_from_a_to_json_inside_a_document
      inner_bytes, before, after = self.class::SIZES.fetch(:nested)
      inner = doc_of(inner_bytes, "inner")
      outer = [doc_of(before, "before"), Nested.new(inner), doc_of(after, "after"), Nested.new([1, "small"])]
      assert_generates_with_nested_calls(outer, inner)
    end

    def test_a_document_that_raises_half_way
      before, after = self.class::SIZES.fetch(:raising)
      assert_recovers_from_a_raising_to_json(doc_of(before, "raises")) { |i| doc_of(after, "after #{i}") }
    end

    def test_threads_that_switch_in_the_middle_of_documents
      threads, before, after, calls = self.class::SIZES.fetch(:threads)
      docs = threads.times.map do |t|
        [doc_of(before, "t#{t}"), Nested.new({ "thread" => t }) { Thread.pass }, doc_of(after, "t#{t}b")]
      end
      assert_threads_generate_their_own(docs, calls)
    end
  end
end
