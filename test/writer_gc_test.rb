# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "support/writer_support"

# Jetson::Writer under GC.stress and GC compaction, in memory and into an io.
class WriterGCTest < Minitest::Test
  include WriterSupport

  # --- GC ------------------------------------------------------------------

  def test_under_gc_stress
    doc = { "a" => [1, 2.5, "é😀" * 20, { b: nil }], "s" => "x" * 3000, :sym => [[], {}] }
    expected = Jetson.generate(doc, PRETTY)
    GC.stress = true
    begin
      w = write_structure(writer(**PRETTY.transform_values(&:dup)), doc)
      io = StringIO.new
      write_structure(writer(io, script_safe: true), doc)
    ensure
      GC.stress = false
    end
    assert_equal expected, w.to_s
    assert_equal Jetson.generate(doc, script_safe: true), io.string
  end

  def test_survives_gc_compaction
    skip "GC compaction unavailable" unless GC.respond_to?(:verify_compaction_references)
    opts = { indent: +"  ", space: +" ", object_nl: +"\n", array_nl: +"\n", as_json: ->(o, _) { o.to_s }, strict: true }
    w = writer(**opts).push_object.push_array("list").push_value(1)
    io = RecordingIO.new
    streaming = writer(io, **opts).push_array.push_value("a")
    GC.verify_compaction_references(double_heap: true, toward: :empty)
    w.push_value(Object).pop.push_key(:k).push_value([{ "x" => :y }]).pop
    streaming.push_value(Object).pop
    assert_equal Jetson.generate({ "list" => [1, Object], :k => [{ "x" => :y }] }, opts), w.to_s
    assert_equal Jetson.generate(["a", Object], opts), io.string
  end
end
