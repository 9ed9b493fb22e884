# frozen_string_literal: true

require "test_helper"
require "support/record_tests"
require "support/scratch_table"
require "jetson/rails"

# The native stock memo (ext/jetson/stock_memo.c) keeps its answers until
# Jetson::MethodWatch hears of a change. Each way an app can change a method
# after a first encode must show on the very next call; a class that keeps
# its hooks to itself is never memoized; and the stock path must really be
# memoized (no question to Ruby per call), so that a Ruby that stopped
# reaching the watch would fail here rather than silently run slower.
class RecordsStockMemoTest < Minitest::Test
  include RecordTests

  # A Time subclass: its stock check (Time#as_json and the methods behind
  # it) is a question of its own, so redefining it here touches no other
  # test's Times. (ActiveSupport 7.1+ never asks a Hash for as_json without
  # options, so a Hash subclass would show nothing.)
  class MemoTime < Time; end

  def setup
    @world = RecordMatrix.world("sqlite3")
    ScratchTable.create(@world, :memoed) { |t| t.string :title }
    @model = ScratchTable.model(@world, :Memoed, :memoed)
    @model.create!(title: "t0")
    @time_class = Class.new(MemoTime)
    Jetson::Rails.install!
  end

  def record = @model.first

  # Rails mode's bytes for the record, checked against ActiveSupport's own.
  def jetson_json(value = record)
    ActiveSupport.json_encoder = STOCK
    stock = value.to_json
    Jetson::Rails.install!
    jetson = value.to_json
    assert_equal stock, jetson
    jetson
  end

  def asks
    before = Jetson::MethodWatch.asks
    yield
    Jetson::MethodWatch.asks - before
  end

  def test_the_watch_sits_in_every_module_s_hooks
    assert_equal Jetson::MethodWatch, Module.ancestors.first
    assert Jetson::Rails.watched?([[@model, :title], [Time, :as_json]])
  end

  # The stock path asks Ruby once per class and question, then never again.
  def test_stock_answers_are_kept
    r = record
    hash = { "a" => 1, "t" => @time_class.at(0).utc, "f" => [1.5, Date.new(2024, 1, 2), BigDecimal("1.5")] }
    assert_operator asks { r.to_json }, :>, 0
    assert_operator asks { ActiveSupport::JSON.encode(hash) }, :>, 0
    ActiveSupport::JSON.encode(hash, only: %w[a t]) # Hash#as_json's question
    assert_equal 0, asks { 3.times { r.to_json } }, "record.to_json asked Ruby"
    assert_equal 0, asks { 3.times { ActiveSupport::JSON.encode(hash) } }, "a Hash's encode asked Ruby"
    assert_equal 0, asks { 3.times { ActiveSupport::JSON.encode(hash, only: %w[a t]) } }
  end

  # After a method defined elsewhere the kept answers are checked again (no
  # question to Ruby: their methods still resolve to the same definitions).
  def test_an_unrelated_definition_is_checked_without_asking
    r = record
    r.to_json
    Class.new { def unrelated = 1 }
    assert_equal 0, asks { r.to_json }
  end

  def test_a_reader_defined_in_the_class
    assert_includes jetson_json, '"title":"t0"'
    @model.class_eval { def title = "in the class" }
    assert_includes jetson_json, '"title":"in the class"'
  end

  def test_a_reader_added_to_an_ancestor_module
    concern = Module.new
    @model.include(concern)
    assert_includes jetson_json, '"title":"t0"'
    concern.module_eval { def title = "from the ancestor" }
    assert_includes jetson_json, '"title":"from the ancestor"'
  end

  def test_a_module_included_or_prepended
    assert_includes jetson_json, '"title":"t0"'
    @model.include(Module.new { def title = "included" })
    assert_includes jetson_json, '"title":"included"'
    @model.prepend(Module.new { def title = "prepended" })
    assert_includes jetson_json, '"title":"prepended"'
  end

  def test_a_singleton_method
    r = record
    assert_includes jetson_json(r), '"title":"t0"'
    r.define_singleton_method(:title) { "singleton" }
    assert_includes jetson_json(r), '"title":"singleton"'
    # A module extended into the record's class's singleton class changes
    # no instance method: the class's answers are unaffected.
    @model.extend(Module.new { def memo_test_class_method = 1 })
    assert_includes jetson_json, '"title":"t0"'
  end

  def test_remove_method_and_undef_method
    @model.class_eval { def title = "own" }
    assert_includes jetson_json, '"title":"own"'
    @model.class_eval { remove_method :title }
    assert_includes jetson_json, '"title":"t0"'

    times = [@time_class.at(0).utc]
    assert_equal '["1970-01-01T00:00:00.000Z"]', jetson_json(times)
    @time_class.class_eval { undef_method :as_json }
    ActiveSupport.json_encoder = STOCK
    assert_raises(NoMethodError) { times.to_json }
    Jetson::Rails.install!
    assert_raises(NoMethodError) { times.to_json }
  end

  def test_alias_method
    @model.class_eval { def shouted = self[:title].upcase }
    assert_includes jetson_json, '"title":"t0"'
    @model.class_eval { alias_method :title, :shouted }
    assert_includes jetson_json, '"title":"T0"'
  end

  def test_time_methods_redefined_in_a_subclass
    times = [@time_class.at(0).utc]
    assert_equal '["1970-01-01T00:00:00.000Z"]', jetson_json(times)
    @time_class.class_eval { def xmlschema(*) = "mine" }
    assert_equal '["mine"]', jetson_json(times)
    @time_class.class_eval { def as_json(*) = { "b" => 2 } }
    assert_equal '[{"b":2}]', jetson_json(times)
  end

  # Its definitions never reach the watch: every call asks Ruby, and the
  # bytes follow each change.
  def test_a_class_whose_method_added_skips_super_is_never_kept
    @model.singleton_class.class_eval { def method_added(_name) = nil }
    refute Jetson::Rails.watched?([[@model, :title]])
    r = record
    assert_includes jetson_json(r), '"title":"t0"'
    assert_operator asks { r.to_json }, :>, 0
    assert_operator asks { r.to_json }, :>, 0
    @model.class_eval { def title = "unheard" }
    assert_includes jetson_json(r), '"title":"unheard"'
    @model.class_eval { def title = "unheard again" }
    assert_includes jetson_json(r), '"title":"unheard again"'

    time_class = Class.new(MemoTime) { def self.method_added(_name) = nil }
    times = [time_class.at(0).utc]
    assert_equal '["1970-01-01T00:00:00.000Z"]', jetson_json(times)
    assert_operator asks { times.to_json }, :>, 0
    time_class.class_eval { def as_json(*) = "unheard" }
    assert_equal '["unheard"]', jetson_json(times)
  end

  # The hook defined after the first encode: that definition is itself
  # heard (singleton_method_added), and the answer is asked again.
  def test_a_hook_that_skips_super_defined_after_the_first_encode
    r = record
    assert_includes jetson_json(r), '"title":"t0"'
    @model.define_singleton_method(:method_added) { |_name| nil }
    @model.class_eval { def title = "after the hook" }
    assert_includes jetson_json(r), '"title":"after the hook"'
    @model.class_eval { def title = "and again" }
    assert_includes jetson_json(r), '"title":"and again"'
  end

  # A module extended into the class with its own method_added.
  def test_a_hook_extended_after_the_first_encode
    r = record
    assert_includes jetson_json(r), '"title":"t0"'
    @model.extend(Module.new { def method_added(_name) = nil })
    @model.class_eval { def title = "after the extend" }
    assert_includes jetson_json(r), '"title":"after the extend"'
  end
end
