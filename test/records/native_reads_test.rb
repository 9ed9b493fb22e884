# frozen_string_literal: true

require "test_helper"
require "support/record_tests"
require "support/native_read_checks"
require "jetson/jbuilder"

# The differential tests show the bytes are ActiveSupport's; these show they
# come from the native reads, not from a silent fall back to the readers:
# encoding freshly loaded records column by column leaves every value uncast
# in its record (a reader stores its cast in the record's attribute set), and
# allocates next to nothing per record (the readers cast values into objects:
# a String, a Time and a TimeWithZone, a Hash...). Each column is one kind of
# db_cast.c.
class RecordsNativeReadsTest < Minitest::Test
  include NativeReadChecks
  include RecordTests

  # column => objects allocated per value at most (a BigDecimal's text is
  # made by its to_s).
  COLUMNS = { "title" => 0, "body" => 0, "count" => 0, "big" => 0, "ratio" => 0, "price" => 1, "amount" => 1,
              "flag" => 0, "day" => 0, "at0" => 0, "at3" => 0, "at6" => 0, "clock" => 0, "data" => 0, "status" => 0,
              "kind" => 0, "legacy" => 0 }.freeze
  POSTGRESQL = { "uid" => 0, "doc" => 0, "tz_at" => 0 }.freeze

  test_each_adapter do |adapter, world|
    columns = world.postgresql? ? COLUMNS.merge(POSTGRESQL) : COLUMNS
    # sqlite3 keeps decimals as REAL: a Float's cast to BigDecimal (rounded
    # at the column's precision) is left to the reader.
    columns = columns.except("price", "amount") if world.sqlite?
    saved = RecordMatrix.apply(RecordMatrix::COMBOS[3]) # a zone with daylight saving time, precision 6
    ActiveSupport.json_encoder = Jetson::RailsEncoder
    [true, false].each do |aware|
      sample = world.models.fetch(aware).fetch(:sample)
      columns.each do |column, per_value|
        # The rows ActiveRecord wrote (the raw SQL rows hold what only the
        # readers settle). only: leaves out the model's declared attribute
        # (`mood`), whose default ActiveRecord builds per record.
        options = { only: ["id", column] }
        load = ->(ids) { sample.select(:id, column).where(id: ids).order(:id).to_a }
        # Objects per record: the difference between 30 records and 10
        # (what a call costs once, its checks and plans, cancels out).
        ActiveSupport::JSON.encode(load.call(1..2), options) # plans and descriptors, made once
        many, few = load.call(1..30), load.call(1..10)
        assert_equal 30, many.size
        per_record = (allocations { ActiveSupport::JSON.encode(many, options) } -
                      allocations { ActiveSupport::JSON.encode(few, options) }) / 20.0
        assert_operator per_record, :<=, per_value + 0.5, # the output buffer grows more often on more records
                        "#{adapter} #{column} (#{aware ? 'zone aware' : 'not zone aware'}): #{per_record} objects " \
                        "per record: read through the reader?"
        records = many
        assert records.all? { |r| uncast?(r, column) }, "#{adapter} #{column}: a value was cast into the record"
        # extract! takes them as they are, target! writes them; but a JSON
        # column's Hash, which Jbuilder's merges look into, comes from the reader.
        next if %w[data doc].include?(column)

        records = load.call(1..30)
        Jbuilder.new { |json| json.array!(records) { |r| json.extract!(r, :id, column) } }.target!
        assert records.all? { |r| uncast?(r, column) }, "#{adapter} #{column}: extract! cast a value into the record"
      end
    end
  ensure
    RecordMatrix.restore(saved) if saved
  end
end
