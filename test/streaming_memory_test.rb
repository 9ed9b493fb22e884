# frozen_string_literal: true

require "test_helper"
require "tempfile"
require_relative "support/subprocess"

# Streaming into an io holds about one chunk plus the largest single value,
# whatever the document's size (README, Jetson::Writer). The memory tests run
# in a child process, which measures its own peak RSS (VmHWM) around 1 GB of
# output; the chunk tests check that reusing one String per stream, done only
# for an io whose write is IO#write, never reaches an io that keeps what it is
# given.
class StreamingMemoryTest < Minitest::Test
  include JetsonSubprocess

  RECORD = { "id" => 123_456, "name" => "n" * 200, "tags" => %w[a b c], "score" => 1.5,
             "nested" => { "k" => [1, 2, nil, true] } }.freeze
  GIGABYTE = 1_000_000_000
  LIMIT_MB = 20

  # Prints "<VmHWM growth in KiB> <bytes written>" for 1 GB through `how`
  # into /dev/null, measured from just before streaming starts.
  CHILD = <<~RUBY
    require "jetson"
    def hwm = File.read("/proc/self/status")[/VmHWM:\\s+(\\d+)/, 1].to_i
    record = #{RECORD.inspect}
    count = #{GIGABYTE} / Jetson.generate(record).bytesize + 1
    # An io whose write is a Ruby method (a Rack body, a compressor, a
    # socket wrapper): it gets a fresh String per chunk.
    ruby_io = Class.new { def write(str) = str.bytesize; def flush = self }
    File.open(File::NULL, "w") do |file|
      how, = ARGV
      io = how.start_with?("ruby io") ? ruby_io.new : file
      doc = Array.new(count, record) if %w[dump state].include?(how)
      GC.start
      base = hwm
      case how
      when "writer", "ruby io writer"
        writer = Jetson::Writer.new(io)
        writer.push_array
        count.times { writer.push_value(record) }
        writer.pop
      when "ruby io oj"
        require "oj"
        writer = Oj::StreamWriter.new(io, mode: :compat)
        writer.push_array
        count.times { writer.push_value(record) }
        writer.pop
        writer.flush
      when "dump" then Jetson.dump(doc, io)
      when "state" then Jetson::State.new.generate(doc, io)
      end
      print hwm - base, " ", count * Jetson.generate(record).bytesize
    end
  RUBY

  # Under the sanitizer build (rake test:asan) ASan's allocator holds freed
  # blocks in a quarantine of 256 MB, which would be measured as growth; the
  # child runs with that quarantine off (its other checks stay on).
  def sanitizer_env
    return {} unless ENV["JETSON_SANITIZER"]

    { "ASAN_OPTIONS" => [ENV.fetch("ASAN_OPTIONS", nil), "quarantine_size_mb=0"].compact.join(":") }
  end

  def stream_growth(how)
    skip "needs /proc/self/status (Linux)" unless File.readable?("/proc/self/status")
    out = ruby_output(CHILD.sub("how, = ARGV", "how = #{how.inspect}"), env: sanitizer_env)
    growth_kib, bytes = out.split.map { |x| Integer(x) }
    assert_operator bytes, :>=, GIGABYTE
    growth_kib / 1024.0
  end

  def test_a_writer_streams_a_gigabyte_in_bounded_memory
    assert_operator stream_growth("writer"), :<, LIMIT_MB
  end

  # The fresh Strings an io that is not IO#write gets are swept every 8 MB
  # (ext/jetson/buffer.c, jt_buffer_flush): without that, 104 MB. Oj's
  # StreamWriter on the same rows into the same io is the anchor (about
  # 3 MB here, where it collects once per few MB of small Strings).
  def test_a_writer_into_a_ruby_io_streams_a_gigabyte_in_bounded_memory
    writer = stream_growth("ruby io writer")
    oj = ENV["JETSON_SANITIZER"] ? nil : stream_growth("ruby io oj")
    puts format("\n  1 GB into a Ruby io: Jetson::Writer %.1f MB, Oj::StreamWriter %s peak RSS growth",
                writer, oj ? format("%.1f MB", oj) : "(not run under the sanitizer)")
    assert_operator writer, :<, LIMIT_MB
  end

  def test_dump_streams_a_gigabyte_in_bounded_memory
    assert_operator stream_growth("dump"), :<, LIMIT_MB
  end

  def test_state_generate_streams_a_gigabyte_in_bounded_memory
    assert_operator stream_growth("state"), :<, LIMIT_MB
  end

  DOC = Array.new(3000) { |i| { "i" => i, "text" => "é#{'x' * (i % 97)}" } }

  # Keeps every String object it is given, as ActionController::Live's buffer
  # queues them.
  module Keeping
    def write(*chunks)
      (@kept ||= []).concat(chunks)
      chunks.sum(&:bytesize)
    end

    def flush = self
    def kept = @kept.join
    def inspect = "#<#{self.class.name} keeping #{@kept&.size} chunks>"
  end

  class KeepingIO
    include Keeping
  end

  class KeepingFile < File
    include Keeping
  end

  def test_an_io_that_keeps_what_it_is_given_keeps_every_chunk_intact
    factories = { "Ruby io" => -> { KeepingIO.new }, "File subclass" => -> { KeepingFile.new(File::NULL, "w") },
                  "File with a singleton write" => -> { File.new(File::NULL, "w").extend(Keeping) } }
    factories.each do |name, io_for|
      io = io_for.call
      Jetson.dump(DOC, io)
      assert_equal JSON.generate(DOC), io.kept, name
      io = io_for.call
      writer = Jetson::Writer.new(io)
      writer.push_array { DOC.each { |row| writer.push_value(row) } }
      assert_equal JSON.generate(DOC), io.kept, name
    end
  end

  def test_a_file_gets_the_bytes_of_generate
    Tempfile.create("jetson") do |file|
      Jetson::State.new.generate(DOC, file)
      writer = Jetson::Writer.new(file)
      writer.push_array { DOC.each { |row| writer.push_value(row) } }
      file.flush
      assert_equal JSON.generate(DOC) * 2, File.binread(file.path).force_encoding(Encoding::UTF_8)
    end
  end

  # A value larger than a chunk goes out whole; the chunks after it are
  # ordinary again (the large one's memory is given back).
  def test_a_large_value_in_a_file_stream
    doc = ["a" * 100, "b" * 300_000, "c" * 100, Array.new(2000) { |i| i }]
    Tempfile.create("jetson") do |file|
      writer = Jetson::Writer.new(file)
      writer.push_array { doc.each { |v| writer.push_value(v) } }
      file.flush
      assert_equal JSON.generate(doc), File.binread(file.path)
    end
  end
end
