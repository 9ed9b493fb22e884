# frozen_string_literal: true

require "test_helper"
require "support/record_tests"
require "jetson/jbuilder"
require "support/native_read_checks"
require "support/scratch_table"

# A model's plan under concurrent first use. ActiveRecord builds a model's
# attribute_types and attributes_builder lazily and without a lock: when two
# threads load a model's first records at once (a deploy's first requests
# under puma), each may build its own types Hash, and the records then carry
# the builder's Hash while the class keeps the other. A plan made for the
# class's Hash matched no record, for the life of the process. Every record
# must be read natively under the types it carries, whatever the order the
# threads ran in, and with ActiveSupport's bytes; Jetson::Rails.diagnostics
# must show it.
class RecordsConcurrentPlansTest < Minitest::Test
  include NativeReadChecks
  include RecordTests

  def setup
    @world = RecordMatrix.world("sqlite3")
    rows = Array.new(3) { |i| { title: "t#{i}", score: i, at: "2024-01-0#{i + 1} 10:00:00" } }
    ScratchTable.create(@world, :raced, rows) do |t|
      t.string :title
      t.integer :score
      t.datetime :at, precision: 6
    end
    Jetson::Rails::Diagnostics.reset!
  end

  def fresh_model = ScratchTable.model(@world, :Raced, :raced)

  def encode(encoder, records) = RailsOracle.encode_with(encoder, records)

  def built(records)
    Jbuilder.new { |json| json.array!(records) { |r| json.extract!(r, :id, :title, :score, :at) } }.target!
  end

  def reference(records)
    Jbuilder.new { |json| json.array!(records) { |r| json.id r.id; json.title r.title; json.score r.score; json.at r.at } }
            .target!
  end

  def types_of(record)
    record.instance_variable_get(:@attributes).instance_variable_get(:@types)
  end

  # Rails main keeps a model's schema (its attribute types among it) in one
  # schema context, loaded under a lock, whose attributes_builder is made
  # anew from those types on each call; earlier Rails keep the types and the
  # builder in the class, each memoized without a lock.
  def schema_context?(model) = model.respond_to?(:schema_context)

  # Makes the class keep `types` as its attribute types from now on (the
  # records it loads then carry them on Rails main).
  def keep_types(model, types)
    model.schema_context.instance_variable_set(:@attribute_types, types)
  end

  # Both writers give ActiveRecord's bytes, every record natively, with no
  # fallback counted.
  def assert_native(records)
    Jetson::Rails::Diagnostics.reset!
    jetson = encode(Jetson::RailsEncoder, records)
    jetson_built = built(records)
    diagnostics = Jetson::Rails.diagnostics
    assert_equal({ native: records.size * 2, ruby: 0 }, diagnostics[:records], diagnostics[:fallbacks].inspect)
    assert_equal 0, diagnostics[:values][:ruby], diagnostics[:fallbacks].inspect
    assert_empty diagnostics[:fallbacks]
    records.each { |record| assert uncast?(record, "title"), "title was read natively, not cast by its reader" }
    assert_equal encode(STOCK, records), jetson
    assert_equal reference(records), jetson_built
  end

  # The state a race leaves: the records carry their builder's Hash, the
  # class another one it built afterwards.
  def test_records_whose_types_are_not_the_class_attribute_types
    model = fresh_model
    records = model.order(:id).to_a
    if schema_context?(model)
      keep_types(model, model.attribute_types.dup)
    else
      model.instance_variable_set(:@attribute_types, nil)
    end
    refute_same model.attribute_types, types_of(records.first), "the class now keeps another Hash"
    assert_native(records)
    assert_native(model.order(:id).to_a) # and records loaded afterwards
  end

  # The other order: the class's Hash made first, then a builder of its own
  # for the records (a thread that computed the types before another set
  # them).
  def test_a_builder_holding_a_hash_the_class_does_not
    model = fresh_model
    model.attribute_types
    other = model.attribute_types.dup
    if schema_context?(model)
      # The records are loaded while the class keeps the other Hash, which
      # the class then replaces with its own again.
      own = model.attribute_types
      keep_types(model, other)
      records = model.order(:id).to_a
      keep_types(model, own)
    else
      model.instance_variable_set(:@attributes_builder, ActiveModel::AttributeSet::Builder.new(other, model.attributes_builder.default_attributes))
      records = model.order(:id).to_a
    end
    assert_same other, types_of(records.first)
    refute_same model.attribute_types, other
    assert_native(records)
  end

  # Records loaded before a schema reload keep the old types; written
  # beside records loaded after it, each is read under its own.
  def test_records_from_before_and_after_a_schema_reload
    model = fresh_model
    before = model.order(:id).to_a
    assert_native(before)
    @world.connection.add_column(:raced, :extra, :integer, default: 5)
    model.reset_column_information
    after = model.order(:id).to_a
    refute_same types_of(before.first), types_of(after.first)
    mixed = [before.first, after.first, before.last]
    Jetson::Rails::Diagnostics.reset!
    assert_equal encode(STOCK, mixed), encode(Jetson::RailsEncoder, mixed)
    assert_equal({ native: 3, ruby: 0 }, Jetson::Rails.diagnostics[:records])
  end

  # Threads load a fresh model's first records at once, each pausing inside
  # ActiveRecord's lazy type building (as a query for the schema would), so
  # that they build their own Hashes as in puma's first requests; whatever
  # Hashes they end up with, every record each thread loaded, and every
  # record loaded afterwards, is written natively.
  def test_threads_loading_a_models_first_records_at_once
    8.times do
      model = fresh_model
      pause = Module.new do
        define_method(:_default_attributes) do
          sleep 0.001 # another thread runs meanwhile
          super()
        end
      end
      model.singleton_class.prepend(pause)
      gate = Queue.new
      threads = Array.new(4) do
        Thread.new do
          gate.pop
          model.order(:id).to_a
        end
      end
      threads.size.times { gate << true }
      loaded = threads.map(&:value)
      assert_native(loaded.flatten)
      assert_native(model.order(:id).to_a)
    end
  end
end
