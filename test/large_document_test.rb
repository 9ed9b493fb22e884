# frozen_string_literal: true

require "test_helper"
require_relative "support/subprocess"
require_relative "support/document_buffers"

# Documents over 1 MiB are written into a String sized from the Ractor's
# last large document and handed out as it is, or, when larger than that, into
# a buffer each Ractor keeps between calls (buffer.c's spare) and handed out
# as an exact-size copy. These tests check that neither leaks into another
# result, that results are not much larger than their bytes, and that nesting,
# threads, exceptions, GC compaction and Ractors each get a buffer of their own.
class LargeDocumentTest < Minitest::Test
  include JetsonSubprocess
  include DocumentBuffers
  include DocumentBuffers::Walks

  MIB = 1024 * 1024
  # DocumentBuffers::Walks' documents. The nested generate comes after 3 MiB
  # of the outer document, when the outer call is writing into the kept
  # buffer.
  SIZES = { nested: [2 * MIB, 3 * MIB, 2 * MIB], raising: [3 * MIB, 4 * MIB], threads: [3, 2 * MIB, MIB, 4] }.freeze

  # An Array of Strings whose JSON is about `bytes` long; `tag` makes the
  # bytes of each document differ.
  def doc_of(bytes, tag)
    piece = "#{tag}-é-\"quoted\"-" + ("x" * 9_000)
    Array.new((bytes / piece.bytesize) + 1) { |i| i.even? ? piece : { "i" => i, "s" => piece } }
  end

  def test_documents_around_the_thresholds_in_a_row
    sizes = [900 * 1024, MIB - 10, MIB + 10, 5 * MIB, 3 * 1024, 9 * MIB, 2 * MIB, 600 * 1024, 7 * MIB]
    results = sizes.each_with_index.map do |bytes, i|
      doc = doc_of(bytes, i)
      expected = JSON.generate(doc)
      actual = Jetson.generate(doc)
      assert_equal expected, actual, "document #{i} (#{bytes} bytes)"
      assert_equal Encoding::UTF_8, actual.encoding
      [expected, actual]
    end
    # Each result is a String of its own: writing the later documents into
    # the kept buffer did not change the earlier results.
    results.each_with_index { |(expected, actual), i| assert_equal expected, actual, "result #{i} changed" }
    results.last[1].replace("changed")
    doc = doc_of(5 * MIB, "again")
    assert_equal JSON.generate(doc), Jetson.generate(doc)
  end

  # Each document is sized from the one before: a much smaller one must not
  # keep the larger one's memory, a larger one must still be whole.
  def test_results_are_about_their_size_whatever_came_before
    require "objspace"
    [9 * MIB, 2 * MIB, 2 * MIB + 100_000, 6 * MIB, 1 * MIB + 10, 30 * MIB, 3 * MIB].each_with_index do |bytes, i|
      doc = doc_of(bytes, "sized #{i}")
      result = Jetson.generate(doc)
      assert_equal JSON.generate(doc), result, "document #{i} (#{bytes} bytes)"
      assert_operator ObjectSpace.memsize_of(result), :<=, result.bytesize * 1.25 + 4096, "document #{i}: capacity"
    end
  end

  # A long Array that outgrows the buffer part-way is given room for the
  # rest at its elements' average length so far, in one step. Elements that
  # then come longer or shorter than that average are still written whole,
  # and the result keeps no more than 4 KiB or 1/16 of its length unused.
  def test_long_arrays_whose_elements_change_length_part_way
    require "objspace"
    long = "x" * 300
    docs = {
      "integers" => (1_000_000..1_001_000).to_a,
      "short then long" => Array.new(200) { |i| i } + Array.new(200) { |i| "#{long}#{i}" },
      "long then short" => Array.new(50) { |i| "#{long}#{i}" } + Array.new(5000) { |i| i },
      "integers then containers" => Array.new(300) { |i| i * 7 } + Array.new(300) { |i| { "k" => [i, long] } },
      "negative and bignum" => Array.new(2000) { |i| i.odd? ? -((2**62) + i) : (2**64) + i },
      "names then integers" => Array.new(100) { |i| "name#{i}" } + Array.new(100_000) { |i| i - 50_000 }
    }
    docs.each do |name, doc|
      [{}, { buffer_initial_length: 100 }, { buffer_initial_length: 2**40 }].each do |opts|
        result = Jetson.generate(doc, opts)
        assert_equal JSON.generate(doc, opts), result, "#{name} #{opts}"
        unused = ObjectSpace.memsize_of(result) - result.bytesize
        assert_operator unused, :<=, [4096, result.bytesize / 16].max + 64, "#{name} #{opts}: capacity"
      end
    end
  end

  # Issue 55: a document the remembered length covers moves into its sized
  # String at 1 MiB (it was 2 MiB: the doublings' Strings took fresh pages
  # after a trim). Of 1.5 MiB, after one of the same size and a full
  # collection (Ruby trims glibc's heap), it is written in the sized String,
  # 1/32 over its length, and handed out whole; the build before grew it to
  # 2 MiB first, missed the length and copied it out exact-size.
  def test_a_large_document_again_after_a_full_collection_is_sized_at_1_mib
    require "objspace"
    doc = doc_of(1.5 * MIB, "again after GC")
    expected = JSON.generate(doc)
    assert_equal expected, Jetson.generate(doc)
    results = 3.times.map do
      GC.start(full_mark: true, immediate_sweep: true)
      Jetson.generate(doc)
    end
    results.each_with_index do |result, i|
      assert_equal expected, result, "call #{i}"
      assert_operator ObjectSpace.memsize_of(result), :>=, result.bytesize * 1.02, "call #{i}: the sized String"
      assert_operator ObjectSpace.memsize_of(result), :<=, result.bytesize * 1.04 + 4096, "call #{i}: capacity"
    end
    # A document under 1 MiB after it builds in a String of its own.
    small = doc_of(300 * 1024, "mid-size after")
    result = Jetson.generate(small)
    assert_equal JSON.generate(small), result
    assert_operator ObjectSpace.memsize_of(result), :<=, result.bytesize + 4096, "mid-size: exact-size"
    assert_equal expected, results.last
  end

  def test_the_same_large_document_twice_gives_two_strings
    doc = doc_of(3 * MIB, "twice")
    first = Jetson.generate(doc)
    second = Jetson.generate(doc)
    refute_same first, second
    first.clear
    assert_equal JSON.generate(doc), second
  end

  def test_large_documents_survive_gc_compaction
    assert_generates_across_compaction(doc_of(3 * MIB, "compact"))
  end

  def test_writer_and_io_output_of_large_documents
    doc = doc_of(3 * MIB, "io")
    expected = JSON.generate(doc)
    io = StringIO.new
    Jetson.dump(doc, io)
    assert_equal expected, io.string
    assert_equal expected, Jetson.generate(doc)
    writer = Jetson::Writer.new
    writer.push_value(doc)
    assert_equal expected, writer.to_s
  end

  def test_ractors_generate_large_documents_side_by_side
    assert_ractors_generate_side_by_side('Array.new(300) { |k| "r#{i}-#{k}-" + ("é" * 5000) }')
  end

  # A document much smaller than the last large one is written in a String
  # of the last one's length (the sized String), whose pages come in as the
  # document reaches them, no more than about twice what it writes: not all
  # at once (fresh_pages.c counts as page faults). glibc is told to map
  # anything over 1 MiB afresh, so the String's pages are never resident
  # before.
  def test_a_smaller_document_in_a_sized_string_brings_in_only_its_own_pages
    skip "page faults need /proc/self/stat" unless File.exist?("/proc/self/stat")
    skip "the sanitizers and valgrind bring their own malloc" if ENV["JETSON_SANITIZER"] || ENV["JETSON_MEMCHECK"]
    script = <<~RUBY
      require "json"
      piece = "\#{"x" * 9_000}"
      big = Array.new(1_000) { piece }    # about 9 MB
      small = Array.new(170) { piece }    # about 1.5 MB
      faults = -> { File.read("/proc/self/stat").split[9].to_i }
      expected = JSON.generate(small)
      counts = 3.times.map do
        Jetson.generate(big) # the length the next document's String is sized from
        GC.start
        before = faults.call
        result = Jetson.generate(small)
        count = faults.call - before
        raise "wrong bytes" unless result == expected
        count
      end
      puts counts.min
    RUBY
    faults = Integer(ruby_output("require \"jetson\"\n#{script}", env: { "MALLOC_MMAP_THRESHOLD_" => "1048576" }))
    page = 4096
    # Written: 1.5 MB into the sized String and its 1.5 MB copy; the whole
    # String (9.3 MB) would be about 2,270 pages.
    assert_operator faults, :<, (4.5 * MIB / page).to_i, "page faults of a 1.5 MB document after a 9 MB one"
  end
end
