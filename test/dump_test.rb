# frozen_string_literal: true

require "test_helper"
require "stringio"
require "support/json_oracle"

class DumpTest < Minitest::Test
  include JSONOracle

  DOC = { "a" => [1, Float::NAN, { "b" => [[["deep"]]] }] }.freeze

  def test_every_call_form
    forms = [[], [2], [10], [{ allow_nan: false }], [10, { allow_nan: false }], [nil, nil, { max_nesting: 2 }]]
    forms.each do |args|
      assert_both(-> { JSON.dump(DOC, *args) }, -> { Jetson.dump(DOC, *args) }, "dump(DOC, #{args.inspect})")
    end
  end

  def test_io_forms_stream_and_return_the_io
    [[], [10], [{ allow_nan: true }], [10, { max_nesting: 10 }], [2]].each do |args|
      json_io = StringIO.new
      jetson_io = StringIO.new
      assert_both(-> { JSON.dump(DOC, json_io, *args) && json_io.string },
                  -> { Jetson.dump(DOC, jetson_io, *args).equal?(jetson_io) && jetson_io.string },
                  "dump(DOC, io, #{args.inspect})")
    end
  end

  # io.write is Ruby code: one that changes the document's Strings while it
  # is being written must not make Jetson read freed or moved bytes. Writes
  # happen between values only, so every String comes out whole, either as
  # it was or as the io left it.
  def test_an_io_that_changes_the_document_while_it_is_written
    strings = Array.new(40) { |i| +("é#{i}\n" * (2_000 + i)) }
    originals = strings.map { |str| (+"") << str } # copies, not shared buffers
    replacements = strings.each_index.map { |i| "r#{i}" }
    sink = StringIO.new
    sink.define_singleton_method(:write) do |chunk|
      strings.each_with_index { |str, i| str.replace(replacements[i]) }
      GC.start
      # New Strings of the old sizes, to take the freed memory.
      @junk = Array.new(80) { |i| "Q" * (8_000 + (i * 100)) }
      super(chunk)
    end
    Jetson.dump(strings, sink)
    written = JSON.parse(sink.string)
    assert_equal strings.size, written.size
    written.each_with_index do |value, i|
      assert_includes [originals[i], replacements[i]], value, "element #{i}"
    end
    assert_equal originals.first, written.first
    assert_equal replacements.last, written.last
  end

  # Jetson.dump into an io that keeps every chunk it is given.
  def dump_in_chunks(doc)
    writes = []
    sink = Object.new
    sink.define_singleton_method(:write) { |s| writes << s; s.bytesize }
    sink.define_singleton_method(:flush) { self }
    Jetson.dump(doc, sink)
    writes
  end

  # A long String is written in one piece, then the chunk goes out and the
  # buffer shrinks back: memory stays bounded by the largest value.
  def test_one_value_larger_than_a_chunk
    doc = ["a" * 100_000, "b" * 3, ["c" * 70_000] * 3]
    writes = dump_in_chunks(doc)
    assert_equal JSON.generate(doc), writes.join
    assert_operator writes.size, :>=, 4
  end

  # Integers, short Strings and Symbols are written in runs
  # (gen_elements_compact); a run stops where a chunk is pending, so long
  # Arrays of them stream in bounded writes too.
  def assert_bounded_writes(doc)
    writes = dump_in_chunks(doc)
    assert_equal JSON.generate(doc), writes.join
    assert_operator writes.size, :>, 50
    assert_operator writes.map(&:bytesize).max, :<=, 16 * 1024
  end

  def test_integer_arrays_stream_in_chunks
    assert_bounded_writes([Array.new(100_000) { |i| (i * 7919) - 1_000_000_000 }, "end"])
  end

  def test_string_arrays_stream_in_chunks
    assert_bounded_writes([Array.new(50_000) { |i| i.even? ? "name #{i}" : :"symbol_#{i}" }, "end"])
  end

  # A big document reaches the io in several bounded writes, not one String.
  def test_streaming_writes_in_chunks
    doc = Array.new(20_000) { |i| "item #{i}" }
    sizes = dump_in_chunks(doc).map(&:bytesize)
    assert_operator sizes.size, :>, 5
    assert_operator sizes.max, :<=, 64 * 1024
    assert_equal JSON.generate(doc).bytesize, sizes.sum
  end

  # json 2's dump turned a NestingError into ArgumentError; json 3's does not.
  def test_nesting_error_of_dump_follows_the_json_rules
    if Jetson::JSON_RULES >= 3
      error = assert_raises(Jetson::NestingError) { Jetson.dump([[[1]]], 2) }
      assert_equal "nesting of 3 is too deep. Did you try to serialize objects with circular references?", error.message
    else
      error = assert_raises(ArgumentError) { Jetson.dump([[[1]]], 2) }
      assert_equal "exceed depth limit", error.message
    end
    assert_equal error.class.name.split("::").last, (JSON.dump([[[1]]], 2) rescue $!).class.name.split("::").last
  end
end
