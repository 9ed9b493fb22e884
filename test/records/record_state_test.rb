# frozen_string_literal: true

require "test_helper"
require "support/record_tests"
require "jetson/jbuilder"

# Jetson reads a record's values without casting them into it. Afterwards
# the record must behave exactly as one ActiveRecord alone has touched: the
# same values on a later read, the same values before type cast, nothing
# changed, no changes to save; and in the other order, values read (cast)
# before the encoding are what it writes. Checked on records loaded side by
# side, one encoded by Jetson (Rails mode, or extract! in a builder) and one
# not, on every adapter.
class RecordsRecordStateTest < Minitest::Test
  include RecordTests

  def state(record)
    # attributes reads (casts) every value; before_type_cast shows the raw ones.
    comparable([record.attributes_before_type_cast, record.attributes, record.changed?, record.changes,
                record.has_changes_to_save?, record.changed_attribute_names_to_save])
  end

  # NaN is not equal to itself: compared as a name.
  def comparable(value)
    case value
    when Hash then value.transform_values { |v| comparable(v) }
    when Array then value.map { |v| comparable(v) }
    when Float, BigDecimal then value.nan? ? :NaN : value
    else value
    end
  end

  def load(sample)
    sample.order(:id).to_a
  end

  # The first record whose state differs, and how.
  def assert_same_states(expected, actual, label)
    assert_equal expected.size, actual.size, label
    expected.zip(actual).each do |e, a|
      se = state(e)
      sa = state(a)
      next if se == sa

      part = se.zip(sa).index { |x, y| x != y }
      detail = if se[part].is_a?(Hash)
                 se[part].to_a.zip(sa[part].to_a).reject { |x, y| x == y }.first(3).inspect
               else
                 [se[part], sa[part]].inspect
               end
      flunk "#{label}: record #{e.id}, state part #{part}: #{detail}"
    end
    pass
  end

  def jetson_encode(records)
    ActiveSupport.json_encoder = Jetson::RailsEncoder
    ActiveSupport::JSON.encode(records)
  ensure
    ActiveSupport.json_encoder = STOCK
  end

  def builder_encode(records, names)
    Jbuilder.new { |json| json.array!(records) { |r| json.extract!(r, *names) } }.target!
  end

  test_each_adapter do |adapter, world|
    saved = RecordMatrix.apply(RecordMatrix::COMBOS[0]) # New York, default_timezone :local
    [true, false].each do |aware|
      sample = world.models.fetch(aware).fetch(:sample)
      names = sample.attribute_names.map(&:to_sym)
      label = "#{adapter} #{aware ? 'zone aware' : 'not zone aware'}"

      # Encoded first, then read.
      untouched = load(sample)
      encoded = load(sample)
      jetson_encode(encoded)
      assert_same_states untouched, encoded, "#{label}: Rails mode, then read"
      built = load(sample)
      builder_encode(built, names)
      assert_same_states untouched, built, "#{label}: extract!, then read"

      # Read (part of it) first, then encoded: the same bytes as the stock
      # encoder on the same state.
      read_first = load(sample)
      reference = load(sample)
      [read_first, reference].each do |records|
        records.each_with_index { |r, i| r.public_send(names[(i * 7) % names.size]) }
      end
      stock = ActiveSupport::JSON.encode(reference)
      assert_equal stock, jetson_encode(read_first), "#{label}: read, then Rails mode"
      assert_same_states reference, read_first, "#{label}: read, encoded, read"

      # Encoding does not change what a record will save.
      changed = load(sample).first(3)
      unencoded = load(sample).first(3)
      (changed + unencoded).each { |r| r.title = "changed" }
      jetson_encode(changed)
      builder_encode(changed, names)
      assert_same_states unencoded, changed, "#{label}: changed, encoded"
    end
  ensure
    RecordMatrix.restore(saved) if saved
  end
end
