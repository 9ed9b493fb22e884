# frozen_string_literal: true

require "test_helper"
require "objspace"
require "rbconfig"
require_relative "support/subprocess"
require_relative "support/document_buffers"

# Documents from the stack buffer's 2 KiB up to 1 MiB are written into a
# buffer each Ractor keeps between calls (buffer.c's scratch) and handed out
# as exact-size copies; from 128 KiB, after a document of 128 KiB to 1 MiB,
# they move into a String sized from it, which is the result (scratch_window). These tests check that the results are whole, of
# their own and exact-size, that nesting, threads, exceptions, GC compaction
# and Ractors each get a buffer of their own, and that under jemalloc such
# documents no longer take fresh pages on every call.
class MidSizeDocumentTest < Minitest::Test
  include JetsonSubprocess
  include DocumentBuffers
  include DocumentBuffers::Walks

  KIB = 1024
  # DocumentBuffers::Walks' documents, within the scratch.
  SIZES = { nested: [6 * KIB, 5 * KIB, 3 * KIB], raising: [6 * KIB, 12 * KIB], threads: [4, 3 * KIB, 10 * KIB, 20] }.freeze

  # An Array of short Strings and Hashes whose JSON is about `bytes` long;
  # `tag` makes each document's bytes differ.
  def doc_of(bytes, tag)
    piece = "#{tag}-é-\"q\"-#{'y' * 40}"
    Array.new((bytes / (piece.bytesize + 20)) + 1) { |i| i.even? ? "#{piece}#{i}" : { "i" => i, "s" => piece } }
  end

  def test_documents_around_the_thresholds_in_a_row
    sizes = [2 * KIB - 40, 2 * KIB + 40, 4 * KIB, 31 * KIB, 32 * KIB + 200, 3 * KIB, 200 * KIB, 8 * KIB,
             1536 * KIB, 16 * KIB, 100]
    results = sizes.each_with_index.map do |bytes, i|
      doc = doc_of(bytes, i)
      actual = Jetson.generate(doc)
      assert_equal JSON.generate(doc), actual, "document #{i} (about #{bytes} bytes)"
      assert_equal Encoding::UTF_8, actual.encoding
      [JSON.generate(doc), actual]
    end
    # Each result is a String of its own: later documents, written into the
    # same kept buffer, did not change the earlier ones.
    results.each_with_index { |(expected, actual), i| assert_equal expected, actual, "result #{i} changed" }
    results[1][1] << "changed"
    doc = doc_of(4 * KIB, "again")
    assert_equal JSON.generate(doc), Jetson.generate(doc)
  end

  # Below 128 KiB the scratch path is the one taken: results hold no unused
  # tail, as the json gem's do (a result that grew by doublings kept up to
  # 4 KiB). From 128 KiB, a document after one of its size moves out of the
  # scratch into a String sized from that one (buffer.c's scratch_window),
  # which is the result: a little larger than exact, never by more than a
  # 32nd (the size's margin).
  def test_mid_size_results_are_exact_size_or_sized_in_place
    [2100, 4 * KIB, 9 * KIB, 17 * KIB, 30 * KIB, 60 * KIB, 100 * KIB, 300 * KIB, 1000 * KIB].each do |bytes|
      doc = doc_of(bytes, bytes)
      reference = JSON.generate(doc)
      exact = ObjectSpace.memsize_of(reference)
      assert_equal reference, Jetson.generate(doc)
      # The second call follows a document of its own size.
      [Jetson.generate(doc), Jetson::State.new.generate(doc)].each_with_index do |result, i|
        assert_equal reference, result
        memsize = ObjectSpace.memsize_of(result)
        if result.bytesize < 128 * KIB
          assert_equal exact, memsize, "#{result.bytesize} bytes, call #{i}"
        else
          assert_operator memsize, :>, exact, "#{result.bytesize} bytes, call #{i}: written in place"
          assert_operator memsize - exact, :<=, (result.bytesize / 32) + 64, "#{result.bytesize} bytes, call #{i}"
        end
      end
    end
  end

  # Once the scratch has grown to a size, a document of that size allocates
  # its result and nothing else: no new buffer, no doublings (each took a
  # String of its own, on fresh pages, when the scratch stopped at 32 KiB).
  # A document over 1 MiB in between moves out of the scratch and leaves it
  # to the next mid-size one. The one case of two objects: the 300 KiB
  # document after the 900 KiB one moves at 128 KiB into a String sized for
  # 900 KiB (scratch_window), and ending with most of it unused, is copied
  # out exact-size.
  def test_a_grown_scratch_serves_the_next_documents
    docs = [40 * KIB, 300 * KIB, 900 * KIB].to_h { |bytes| [bytes, doc_of(bytes, "kept #{bytes}")] }
    docs[:large] = doc_of(3 * 1024 * KIB, "large between")
    order = [40 * KIB, 900 * KIB, 40 * KIB, 300 * KIB, :large, 40 * KIB, 900 * KIB]
    # A scratch that an estimate sized (buffer_initial_length) at 600 KiB
    # still grows to serve the 900 KiB document.
    Jetson::State.new(buffer_initial_length: 600 * KIB).generate(docs.fetch(40 * KIB))
    # Twice: the first pass warms the scratch, and this loop's own first
    # steps allocate.
    2.times.flat_map do
      order.map do |bytes|
        before = GC.stat(:total_allocated_objects)
        result = Jetson.generate(docs.fetch(bytes))
        [bytes, GC.stat(:total_allocated_objects) - before, result]
      end
    end.last(order.size).each do |bytes, allocated, result|
      assert_equal JSON.generate(docs.fetch(bytes)), result
      expected = bytes == 300 * KIB ? 2 : 1
      assert_equal expected, allocated, "about #{bytes} bytes: objects allocated with the result" unless bytes == :large
    end
  end

  def test_mid_size_documents_survive_gc_compaction
    assert_generates_across_compaction(doc_of(20 * KIB, "compact"))
  end

  def test_ractors_generate_mid_size_documents_side_by_side
    assert_ractors_generate_side_by_side('Array.new(60) { |k| "r#{i}-#{k}-" + ("é" * 100) }')
  end

  JEMALLOC = ["/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
              "/usr/lib64/libjemalloc.so.2"].find { File.exist?(_1) }

  # Under jemalloc (LD_PRELOAD, as many Rails deployments run), a 4 KB or
  # 8 KB result built in a String of its own, grown by doublings, took 1.1
  # and 2.3-2.4 fresh pages per call (3.5 together), 10x the time of writing
  # it. Counted in page faults, not timed, in a steady loop from a collected
  # heap: with a warm buffer and one exact-size result per call, 0.1 and 0 or
  # 0.6 (jemalloc's slabs come and go with the collections).
  def test_under_jemalloc_mid_size_documents_take_few_fresh_pages
    skip "libjemalloc.so.2 not installed (Debian: libjemalloc2)" unless JEMALLOC
    skip "the sanitizers and valgrind bring their own malloc" if ENV["JETSON_SANITIZER"] || ENV["JETSON_MEMCHECK"]
    skip "page fault counts need /proc/self/stat" unless File.exist?("/proc/self/stat")
    script = <<~RUBY
      require "jetson"
      def minflt = File.read("/proc/self/stat").rpartition(")").last.split[7].to_i
      print [500, 1000].map { |n|
        doc = (1_000_000..(1_000_000 + n)).to_a
        5000.times { Jetson.generate(doc) }
        GC.start
        before = minflt
        5000.times { Jetson.generate(doc) }
        (minflt - before).fdiv(5000)
      }.join(" ")
    RUBY
    lib = File.expand_path("../lib", __dir__)
    out, err, status = Open3.capture3({ "LD_PRELOAD" => JEMALLOC }, RbConfig.ruby, "-I", lib, "-e", script)
    assert status.success?, err
    faults = out.split.map(&:to_f)
    assert_equal 2, faults.size, out
    assert_operator faults.sum, :<, 1.5, "4 KB and 8 KB documents under jemalloc: page faults per call #{faults}"
  end
end
