# frozen_string_literal: true

require "test_helper"
require "support/record_tests"
require "jetson/jbuilder"
require "support/scratch_table"

# Jetson::Rails.diagnostics: what took the native paths and, for what did
# not, the reason a user can act on. Each case writes records through Rails
# mode and a Jbuilder, checks the bytes against ActiveSupport's, and then
# the counts and the reason given.
class RecordsDiagnosticsTest < Minitest::Test
  include RecordTests

  def setup
    @world = RecordMatrix.world("sqlite3")
    rows = Array.new(2) { |i| { title: "t#{i}", data: "{\"a\":#{i}}", score: i } }
    ScratchTable.create(@world, :diagnosed, rows) do |t|
      t.string :title
      t.text :data
      t.integer :score
    end
    Jetson::Rails::Diagnostics.reset!
  end

  def model(&body) = ScratchTable.model(@world, :Diagnosed, :diagnosed, &body)

  def encode(encoder, value) = RailsOracle.encode_with(encoder, value)

  # Rails mode's bytes for value, checked against ActiveSupport's (after
  # Jetson's: ActiveSupport's encoder casts every value it reads); the
  # diagnostics of that one call.
  def diagnose(value)
    Jetson::Rails::Diagnostics.reset!
    jetson = encode(Jetson::RailsEncoder, value)
    diagnostics = Jetson::Rails.diagnostics
    assert_equal encode(STOCK, value), jetson
    diagnostics
  end

  def fallback(diagnostics, reason)
    found = diagnostics[:fallbacks].find { _1[:reason] == reason }
    assert found, "a #{reason} fallback in #{diagnostics[:fallbacks].inspect}"
    found
  end

  def test_all_native
    klass = model
    diagnostics = diagnose(klass.order(:id).to_a)
    assert_equal({ native: 2, ruby: 0 }, diagnostics[:records])
    assert_equal({ native: 8, ruby: 0 }, diagnostics[:values])
    assert_equal({ native: 1, ruby: 0 }, diagnostics[:calls])
    assert_empty diagnostics[:fallbacks]
    assert_equal "Jetson::RailsEncoder", encoder_name_while_installed
    assert Jetson::Rails::Diagnostics.all_native?
  end

  def encoder_name_while_installed
    ActiveSupport.json_encoder = Jetson::RailsEncoder
    Jetson::Rails.diagnostics[:encoder]
  ensure
    ActiveSupport.json_encoder = STOCK
  end

  def test_an_overridden_reader_is_named_with_where_it_is_defined
    line = __LINE__ + 1
    klass = model { def title = "<#{super}>" }
    diagnostics = diagnose(klass.order(:id).to_a)
    assert_equal({ native: 2, ruby: 0 }, diagnostics[:records])
    assert_equal({ native: 6, ruby: 2 }, diagnostics[:values])
    found = fallback(diagnostics, :reader)
    assert_equal [:values, klass.name, "title", 2], found.values_at(:kind, :subject, :detail, :count)
    assert_includes found[:why], "#{klass.name}#title is not ActiveRecord's generated reader (#{__FILE__}:#{line})"
    refute Jetson::Rails::Diagnostics.all_native?
    assert_includes Jetson::Rails::Diagnostics.report, "2 values: #{found[:why]}"
  end

  class Shouting < ActiveModel::Type::String
    def cast_value(value) = super&.upcase
  end

  def test_an_app_type_is_cast_by_its_reader
    klass = model { attribute :title, Shouting.new }
    diagnostics = diagnose(klass.order(:id).to_a)
    found = fallback(diagnostics, :cast)
    assert_equal [:values, "title", 2], found.values_at(:kind, :detail, :count)
    assert_includes found[:why], "#{klass.name}#title's type (#{Shouting.name}) is cast by its reader"
  end

  def test_new_records_are_read_through_their_methods
    klass = model
    diagnostics = diagnose([klass.new(title: "new", score: 3)])
    assert_equal({ native: 0, ruby: 1 }, diagnostics[:records])
    assert_match(/not loaded from the database/, fallback(diagnostics, :not_loaded)[:why])
  end

  def test_a_model_with_its_own_serializable_hash
    line = __LINE__ + 1
    klass = model { def serializable_hash(options = nil) = super.merge("mine" => true) }
    diagnostics = diagnose(klass.order(:id).to_a)
    assert_equal({ native: 0, ruby: 2 }, diagnostics[:records])
    assert_includes fallback(diagnostics, :serialization)[:why], "serializable_hash: #{__FILE__}:#{line}"
  end

  def test_include_root_in_json
    klass = model { self.include_root_in_json = true }
    diagnostics = diagnose(klass.order(:id).to_a)
    assert_equal 2, fallback(diagnostics, :root)[:count]
  end

  def test_a_model_whose_attribute_names_is_its_own_has_no_plan
    klass = model { def attribute_names = super - ["data"] }
    diagnostics = diagnose(klass.order(:id).to_a)
    assert_equal({ native: 0, ruby: 2 }, diagnostics[:records])
    assert_match(/#{klass.name}#attribute_names is not ActiveRecord's \(#{Regexp.escape(__FILE__)}:\d+\)/,
                 fallback(diagnostics, :no_plan)[:why])
  end

  # The Builder's extract! counts its records and values the same way.
  def test_extract_in_a_jbuilder
    klass = model { def score = super.to_i * 10 }
    records = klass.order(:id).to_a
    Jetson::Rails::Diagnostics.reset!
    json = Jbuilder.new { |j| j.array!(records) { |r| j.extract!(r, :id, :title, :score) } }.target!
    assert_equal '[{"id":1,"title":"t0","score":0},{"id":2,"title":"t1","score":10}]', json
    diagnostics = Jetson::Rails.diagnostics
    assert_equal({ native: 2, ruby: 0 }, diagnostics[:records])
    assert_equal({ native: 4, ruby: 2 }, diagnostics[:values])
    assert_equal [:values, "score", 2], fallback(diagnostics, :reader).values_at(:kind, :detail, :count)
  end

  # Plain objects in a Jbuilder are not records: nothing is counted.
  def test_plain_objects_are_not_counted
    point = Struct.new(:x, :y)
    object = Class.new { def x = 1 }.new
    Jbuilder.new { |j| j.a { j.extract!(point.new(1, 2), :x) }; j.b { j.extract!(object, :x) } }.target!
    diagnostics = Jetson::Rails.diagnostics
    assert_equal({ native: 0, ruby: 0 }, diagnostics[:records])
    assert_empty diagnostics[:fallbacks]
  end

  # Diagnostics are kept per Ractor: a Ractor's counts start at zero and
  # do not reach the main one's.
  def test_counts_are_reset_and_kept_per_process
    klass = model
    diagnose(klass.order(:id).to_a)
    refute_equal 0, Jetson::Rails.diagnostics[:records][:native]
    Jetson::Rails::Diagnostics.reset!
    assert_equal({ native: 0, ruby: 0 }, Jetson::Rails.diagnostics[:records])
  end
end
