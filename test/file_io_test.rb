# frozen_string_literal: true

require "test_helper"
require "json"
require "tempfile"
require "objspace"

# Streaming into real IO objects (a File, a pipe, a File with conversions),
# documents of many 16 KB chunks, compared with the json gem's bytes. IO#write
# is where Rubies differ: from 3.3 it leaves a String it was given sharing a
# hidden frozen copy, so a reused chunk String broke the second chunk of
# every document larger than one (buffer.c now lends the bytes in a frozen
# String instead). StringIO and Ruby-method ios take another path
# (test/streaming_memory_test.rb, test/faults_test.rb).
class FileIoTest < Minitest::Test
  SEED = Integer(ENV.fetch("JETSON_FILE_IO_SEED", Random.new_seed % 1_000_000))

  def setup
    @rng = Random.new(SEED)
  end

  def random_string
    alphabet = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\u00e9", "\u2028", "\u{1F600}", "<", "\u0001"]
    Array.new(@rng.rand(0..40)) { alphabet.sample(random: @rng) }.join
  end

  def random_value(depth)
    case depth > 3 ? @rng.rand(6) : @rng.rand(8)
    when 0 then @rng.rand(-2**70..2**70)
    when 1 then @rng.rand(-2**30..2**30) / 64.0 * 10.0**@rng.rand(-12..12)
    when 2 then random_string
    when 3 then [true, false, nil].sample(random: @rng)
    when 4 then @rng.rand(-1000..1000)
    when 5 then random_string * @rng.rand(1..200) # some values span chunks
    when 6 then Array.new(@rng.rand(0..8)) { random_value(depth + 1) }
    else Array.new(@rng.rand(0..8)) { [random_string, random_value(depth + 1)] }.to_h
    end
  end

  def random_document
    Array.new(@rng.rand(200..2500)) { random_value(0) }
  end

  def file_bytes(file)
    file.flush
    File.binread(file.path).force_encoding(Encoding::UTF_8)
  end

  def test_random_documents_into_a_file_through_dump_state_and_writer
    state = Jetson::State.new
    12.times do |i|
      doc = random_document
      expected = JSON.generate(doc)
      assert_operator expected.bytesize, :>, 3 * 16_384, "seed #{SEED}, document #{i}: several chunks"
      calls = {
        "Jetson.dump" => ->(file) { Jetson.dump(doc, file) },
        "State#generate" => ->(file) { state.generate(doc, file) },
        "Writer" => ->(file) { Jetson::Writer.new(file).tap { |w| w.push_array { doc.each { |v| w.push_value(v) } } } }
      }
      calls.each do |name, call|
        Tempfile.create("jetson") do |file|
          call.call(file)
          assert_equal expected, file_bytes(file), "seed #{SEED}, document #{i}, #{name}"
        end
      end
    end
  end

  def test_a_pipe_read_by_another_thread
    doc = random_document
    reader, writer = IO.pipe
    received = Thread.new { reader.read }
    Jetson.dump(doc, writer)
    writer.close
    assert_equal JSON.generate(doc).b, received.value.b, "seed #{SEED}"
  ensure
    reader&.close
  end

  # IO#write's conversions still apply: the chunks go through it.
  def test_a_file_that_transcodes_or_converts_newlines
    doc = Array.new(3000) { |i| { "id" => i, "name" => "caf\u00e9 #{i}", "list" => [i, i * 0.5] } }
    { "w:UTF-16LE" => {}, "w" => { crlf_newline: true } }.each do |mode, options|
      Tempfile.create("jetson") do |expected_file|
        File.open(expected_file.path, mode, **options) { |f| f.write(JSON.pretty_generate(doc)) }
        Tempfile.create("jetson") do |file|
          File.open(file.path, mode, **options) { |f| Jetson::State.new(indent: "  ", space: " ", object_nl: "\n", array_nl: "\n").generate(doc, f) }
          assert_equal File.binread(expected_file.path), File.binread(file.path), mode
        end
      end
    end
  end

  # The fast path: a File is lent the buffer's bytes, so streaming 2.6 MB
  # allocates no chunk-sized String (a fresh one per chunk would be 160).
  def test_a_file_is_lent_the_bytes_not_given_fresh_strings
    doc = Array.new(40_000) { |i| { "id" => i, "name" => "name #{i}", "v" => i * 1.5 } }
    File.open(File::NULL, "w") do |file|
      Jetson.dump(doc, file) # warm
      big = -> { ObjectSpace.each_object(String).count { |s| ObjectSpace.memsize_of(s) >= 8192 } }
      GC.start
      GC.disable
      before = big.call
      Jetson.dump(doc, file)
      assert_operator big.call - before, :<=, 2
    ensure
      GC.enable
    end
  end
end
