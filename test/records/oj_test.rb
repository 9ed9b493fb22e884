# frozen_string_literal: true

require "test_helper"
require "rbconfig"
require "json"
require "support/record_matrix"
require "support/oj_child"

# Apps that also call Oj.optimize_rails. It replaces ActiveSupport's encoder
# and the json gem's JSON.generate and JSON.parse (Oj.mimic_JSON), for the
# whole process and for good, so each order runs in a child process of its
# own, on the rows of the sqlite3 world:
#
# - Oj.optimize_rails, then Jetson::Rails.install!: ActiveSupport encodes with
#   Jetson, which writes ActiveSupport's own bytes (those of a process without
#   Oj). A JSON column is decoded as the app's JSON.parse decodes it: Oj's
#   reads a duplicate key where json 3.1's raises (and the type's rescue
#   gives nil).
# - Jetson::Rails.install!, then Oj.optimize_rails: Oj's encoder is the one in
#   place, and Oj's bytes are what the app gets, from to_json and from
#   jetson/jbuilder's target! alike (which writes Oj's bytes natively, the
#   records' values as Ruby casts them).
class RecordsOjTest < Minitest::Test
  include OjChild

  # The child: builds the values from the world's rows and prints one JSON
  # document of { label => output }.
  CHILD = <<~'RUBY'
    require "support/oj_child/records"
    world = RecordMatrix.world("sqlite3", insert: false)
    case ARGV[0]
    when "plain" then nil
    when "oj, then jetson" then Oj.optimize_rails; Jetson::Rails.install!
    when "jetson, then oj" then Jetson::Rails.install!; Oj.optimize_rails
    end
    Time.zone = "Asia/Tokyo"
    models = world.models.fetch(true)
    duplicates = models[:sample].where("data = ?", '{"a":1,"a":2}')
    out = {
      "encoder" => ActiveSupport.json_encoder.name,
      "records" => models[:sample].where.not(id: duplicates.select(:id)).order(:id).to_a.to_json,
      "duplicate keys" => duplicates.to_a.to_json(only: :data),
      "relation" => models[:article].order(:id).to_json(include: :comments),
      "hash" => { "at" => Time.utc(2024, 1, 2, 3, 4, 5, 678_901), "day" => Date.new(2024, 2, 29), "n" => 1.5,
                  "s" => "<b>\u2028" }.to_json,
      "jbuilder" => Jbuilder.new { |json| json.array!(models[:sample].order(:id).limit(5)) { |s| json.extract!(s, :id, :at6, :data, :title) } }.target!
    }
    $stdout.write(JSON.generate(out))
  RUBY

  def child(mode) = JSON.parse(records_child(CHILD, mode))

  def default_encoder
    script = 'require "bundler/setup"; require "active_support"; require "active_support/json"; ' \
             "print ActiveSupport.json_encoder.name"
    name = IO.popen([RbConfig.ruby, "-e", script], &:read)
    assert $?.success?, "the default encoder's child failed"
    name
  end

  def test_both_orders
    RecordMatrix.world("sqlite3") # the rows
    plain = child("plain")
    jetson_after = child("oj, then jetson")
    oj_after = child("jetson, then oj")

    # ActiveSupport's default encoder (8.1's is JSONGemCoderEncoder under
    # json >= 2.15.2), as a process with neither Jetson nor Oj has it.
    assert_equal default_encoder, plain["encoder"]
    assert_match(/\AActiveSupport::JSON::Encoding::/, plain["encoder"])
    assert_equal "Jetson::RailsEncoder", jetson_after["encoder"]
    assert_equal "Oj::Rails::Encoder", oj_after["encoder"]
    %w[records relation hash jbuilder].each do |label|
      assert_equal plain[label], jetson_after[label], "#{label}: Jetson after Oj writes ActiveSupport's bytes"
      assert_operator plain[label].size, :>, 50, label
      # Oj's own bytes: the same document (its time and float text may differ).
      refute_nil JSON.parse(oj_after[label]), label
    end
    # json 3's JSON.parse refuses the duplicate key (the column reads nil),
    # json 2's warns and keeps the last value.
    expected = JSON::VERSION.to_i >= 3 ? '[{"data":null}]' : '[{"data":{"a":2}}]'
    assert_equal expected, plain["duplicate keys"], "json #{JSON::VERSION}'s JSON.parse"
    assert_equal '[{"data":{"a":2}}]', jetson_after["duplicate keys"], "Oj's JSON.parse keeps the last value"
    oj_only = oj_after.values_at("records", "relation", "hash").join
    refute_equal plain.values_at("records", "relation", "hash").join, oj_only,
                 "Oj's encoder writes bytes of its own (else this test shows nothing)"
  end
end
