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

  # A big document reaches the io in several bounded writes, not one String.
  def test_streaming_writes_in_chunks
    writes = []
    sink = Object.new
    sink.define_singleton_method(:write) { |s| writes << s.bytesize; s.bytesize }
    sink.define_singleton_method(:flush) { self }
    doc = Array.new(20_000) { |i| "item #{i}" }
    Jetson.dump(doc, sink)
    assert_operator writes.size, :>, 5
    assert_operator writes.max, :<=, 64 * 1024
    assert_equal JSON.generate(doc).bytesize, writes.sum
  end

  def test_nesting_error_becomes_argument_error
    error = assert_raises(ArgumentError) { Jetson.dump([[[1]]], 2) }
    assert_equal "exceed depth limit", error.message
  end
end
