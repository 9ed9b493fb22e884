# frozen_string_literal: true

require "test_helper"
require "support/record_tests"
require "jetson/jbuilder"
require "support/scratch_table"

# A model's plan (Jetson::Rails::RecordPlan) is made once and must not
# outlive what it was made for: a reader, attribute_names,
# serializable_hash or as_json defined after it (in the class, a prepended
# module, a subclass), or the schema reloaded with a new column. After each
# change, Rails mode and the builder write what ActiveRecord now gives.
class RecordsPlanTest < Minitest::Test
  include RecordTests

  def setup
    @world = RecordMatrix.world("sqlite3")
    ScratchTable.create(@world, :planned) do |t|
      t.string :title
      t.datetime :at, precision: 6
    end
    @model = ScratchTable.model(@world, :Planned, :planned)
    2.times { |i| @model.create!(title: "t#{i}", at: Time.utc(2024, 1, 1, i)) }
  end

  def encode(encoder)
    ActiveSupport.json_encoder = encoder
    ActiveSupport::JSON.encode(@model.order(:id).to_a)
  ensure
    ActiveSupport.json_encoder = STOCK
  end

  def built
    Jbuilder.new { |json| json.array!(@model.order(:id).to_a) { |r| json.extract!(r, :id, :title, :at) } }.target!
  end

  # Jetson agrees with ActiveRecord now (and the change shows).
  def assert_current(expected_fragment)
    stock = encode(STOCK)
    assert_includes stock, expected_fragment
    assert_equal stock, encode(Jetson::RailsEncoder)
    reference = Jbuilder.new do |json|
      json.array!(@model.order(:id).to_a) { |r| json.id r.id; json.title r.title; json.at r.at }
    end.target!
    assert_equal reference, built
  end

  def test_a_reader_defined_after_the_plan
    assert_current('"title":"t0"')
    @model.class_eval { def title = "[#{super}]" }
    assert_current('"title":"[t0]"')
  end

  def test_a_reader_prepended_after_the_plan
    assert_current('"title":"t1"')
    @model.prepend(Module.new { def at = super&.+(60) })
    assert_current('"at":"2024-01-01T00:01:00.000Z"')
  end

  # Answers are kept per class until a method they rest on resolves to
  # another definition (ext/jetson/stock_memo.c): a method added later to a
  # module the model included before its plan was made is one.
  def test_a_reader_added_to_an_included_module_after_the_plan
    concern = Module.new
    @model.include(concern)
    assert_current('"title":"t0"')
    concern.module_eval { def title = "from the module" }
    assert_current('"title":"from the module"')
    concern.module_eval { remove_method :title }
    assert_current('"title":"t0"')
  end

  def test_time_as_json_redefined_between_calls
    assert_current('"at":"2024-01-01T00:00:00.000Z"')
    patch = Module.new { def as_json(*) = "patched" }
    Time.prepend(patch)
    ActiveSupport::TimeWithZone.prepend(patch)
    assert_current('"at":"patched"')
  ensure
    patch&.module_eval { remove_method :as_json }
  end

  def test_an_alias_defined_after_the_plan
    assert_current('"title":"t0"')
    @model.alias_attribute :headline, :title
    @model.class_eval { def title = "aliased" }
    assert_current('"title":"aliased"')
  end

  def test_attribute_names_and_serializable_hash_defined_after_the_plan
    assert_current('"title":"t0"')
    @model.class_eval { def attribute_names = super - ["at"] }
    assert_current('"title":"t0"')
    refute_includes encode(Jetson::RailsEncoder), '"at"'
    @model.class_eval { def serializable_hash(options = nil) = super.merge("extra" => 1) }
    assert_current('"extra":1')
  end

  def test_as_json_defined_after_the_plan
    assert_current('"title":"t0"')
    @model.class_eval { def as_json(*) = { "mine" => title } }
    assert_current('{"mine":"t1"}')
  end

  def test_the_schema_reloaded_with_a_new_column
    assert_current('"title":"t0"')
    @world.connection.add_column(:planned, :score, :integer, default: 7)
    @model.reset_column_information
    assert_current('"score":7')
  end
end
