# frozen_string_literal: true

require "test_helper"
require "stringio"
require "objspace"
require_relative "support/writer_support"

# Jetson::Writer streaming into an io: chunks, flush, the buffer's memory,
# and a writer stopped by a failed write.
class WriterIOTest < Minitest::Test
  include WriterSupport

  # --- io ------------------------------------------------------------------

  def big_document
    Array.new(6000) { |i| { "id" => i, "name" => "name #{i} é", "tags" => %w[a b], "ok" => i.even?, "f" => i / 7.0 } }
  end

  # io.write runs between values, never while a value's bytes are being
  # read: an io that changes the values it has not been given yet cannot
  # make the writer read freed memory.
  def test_an_io_that_changes_pending_values
    values = Array.new(30) { |i| +("ü#{i}\t" * (3_000 + i)) }
    originals = values.map { |str| (+"") << str }
    io = RecordingIO.new
    io.define_singleton_method(:write) do |*chunks|
      values.each_with_index { |str, i| str.replace("short #{i}") }
      GC.start
      @junk = Array.new(60) { |i| "Q" * (12_000 + i) }
      super(*chunks)
    end
    w = writer(io)
    w.push_array { values.each { |str| w.push_value(str) } }
    written = JSON.parse(io.string)
    written.each_with_index do |value, i|
      assert_includes [originals[i], "short #{i}"], value, "element #{i}"
    end
    assert_equal originals.first, written.first
  ensure
    io&.singleton_class&.remove_method(:write)
  end

  def test_streaming_into_an_io_in_chunks
    doc = big_document
    io = RecordingIO.new
    w = writer(io)
    sizes = []
    w.push_array do
      doc.each do |record|
        w.push_object { record.each { |k, v| w.push_value(v, k) } }
        sizes << ObjectSpace.memsize_of(w)
      end
    end
    expected = Jetson.generate(doc)
    assert_equal expected, io.string
    assert_operator io.writes.size, :>, 10
    assert_equal expected, io.writes.join
    # Full chunks on the way, then the rest when the document completes.
    assert(io.writes[0...-1].all? { |chunk| chunk.bytesize > 8000 && chunk.bytesize <= 16_384 })
    assert_operator io.flushes, :>=, 1
    assert_operator sizes.max, :<, 20_000
    assert(io.writes.all? { |chunk| chunk.encoding == Encoding::UTF_8 })

    in_memory = writer
    write_structure(in_memory, doc)
    assert_operator ObjectSpace.memsize_of(in_memory), :>, expected.bytesize
    assert_equal io.string, in_memory.to_s
    # to_s of a complete document hands the buffer over instead of copying it
    assert_operator ObjectSpace.memsize_of(in_memory), :<, 1024
  end

  def test_to_s_of_a_complete_document_is_independent_of_later_to_s
    w = writer.push_array
    300.times { |i| w.push_value("item #{i}") }
    w.pop
    first = w.to_s
    second = w.to_s
    expected = Jetson.generate(Array.new(300) { |i| "item #{i}" })
    assert_equal expected, first
    refute first.frozen?
    assert_equal Encoding::UTF_8, first.encoding
    first << "changed"
    first.replace("x")
    assert_equal expected, second
    assert_equal expected, w.to_s
    GC.start
    GC.compact if GC.respond_to?(:compact)
    assert_equal expected, w.to_s
    assert_raises(Jetson::WriterError) { w.push_value(1) }
  end

  def test_a_large_value_does_not_keep_the_buffer_large
    io = RecordingIO.new
    w = writer(io).push_array
    small = ObjectSpace.memsize_of(w)
    w.push_value("x" * 1_000_000)
    w.push_value(["\u2028" * 100_000], nil)
    assert_operator ObjectSpace.memsize_of(w), :<=, small
    w.push_json("[" + "1," * 100_000 + "1]")
    assert_operator ObjectSpace.memsize_of(w), :<=, small
    w.pop
    assert_equal Jetson.generate(["x" * 1_000_000, ["\u2028" * 100_000], [1] * 100_001]), io.string
  end

  def test_flush_hands_pending_bytes_to_the_io
    io = RecordingIO.new
    w = writer(io, **PRETTY)
    w.push_object.push_value(1, "a")
    assert_empty io.writes
    assert_same w, w.flush
    assert_equal "{\n  \"a\": 1", io.string
    assert_equal 1, io.flushes
    w.flush # nothing pending: no write, io.flush again
    assert_equal 1, io.writes.size
    assert_equal 2, io.flushes
    w.push_array("b").pop.pop
    # Completing the document writes the rest out.
    assert_equal Jetson.generate({ "a" => 1, "b" => [] }, PRETTY), io.string
    assert_equal 3, io.flushes
  end

  def test_an_io_without_flush
    io = WriteOnly.new
    w = writer(io)
    w.push_array.push_value("a").flush
    assert_equal ['["a"'], io.chunks
    w.push_value(1).pop
    assert_equal '["a",1]', io.chunks.join
  end

  def test_to_s_with_an_io_raises
    w = writer(StringIO.new).push_array
    assert_writer_error(/to_s is not available when writing to an io/) { w.to_s }
    w.pop # still usable
  end

  def test_a_failed_write_to_an_io_stops_the_writer
    io = Class.new(StringIO) do
      def write(*)
        raise Boom, "disk full"
      end
    end.new
    w = writer(io).push_array
    assert_raises(Boom) { 3000.times { w.push_value("some text to fill chunks") } }
    assert_writer_error(/earlier write raised/) { w.push_value(1) }
    assert_writer_error(/earlier write raised/) { w.pop }
    assert_writer_error(/earlier write raised/) { w.flush }
  end

  def test_a_failed_value_with_an_io_stops_the_writer
    io = StringIO.new
    w = writer(io).push_array
    assert_raises(Jetson::GeneratorError) { w.push_value(["\xFF".dup.force_encoding("UTF-8")]) }
    assert_writer_error(/earlier write raised/) { w.push_value(1) }
    # Misuse is caught before anything is written: the writer goes on.
    w2 = writer(StringIO.new).push_array
    assert_raises(Jetson::WriterError) { w2.push_value(1, "k") }
    assert_raises(Jetson::NestingError) { 200.times { w2.push_array } }
    w2.pop_all
  end
end
