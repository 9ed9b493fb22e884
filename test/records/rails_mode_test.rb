# frozen_string_literal: true

require "test_helper"
require "support/record_tests"
require "jetson/rails"

# Rails mode on ActiveRecord as apps pass it, on real databases: every query
# of RecordMatrix under every combination of settings, encoded with
# ActiveSupport's own encoder and with Jetson::RailsEncoder, each on records
# loaded for it alone (so Jetson meets values no one has read), bytes
# compared.
#
#   JETSON_RECORDS_SEED=S  the rows' seed (default 20261125)
class RecordsRailsModeTest < Minitest::Test
  include RecordTests

  # [:ok, bytes] or [:error, class, message]
  def outcome(encoder, query, options)
    ActiveSupport.json_encoder = encoder
    value = query.call
    [:ok, ActiveSupport::JSON.encode(value, options)]
  rescue StandardError => e
    [:error, e.class.name, e.message.gsub(/0x\h+/, "0x…")]
  ensure
    ActiveSupport.json_encoder = STOCK
  end

  def compare(label, query, options, errors)
    stock = outcome(STOCK, query, options)
    jetson = outcome(Jetson::RailsEncoder, query, options)
    errors << [label, stock] if stock[0] == :error
    assert stock == jetson, "#{label}\n stock:  #{stock.inspect[0, 3000]}\n jetson: #{jetson.inspect[0, 3000]}\n" \
          "#{first_difference(stock.last.to_s, jetson.last.to_s)}"
  end

  def first_difference(a, b)
    i = (0...[a.size, b.size].min).find { |k| a[k] != b[k] } || [a.size, b.size].min
    "first difference at byte #{i}: stock ...#{a[[i - 80, 0].max, 160].inspect} jetson ...#{b[[i - 80, 0].max, 160].inspect}"
  end

  test_each_adapter do |adapter, world|
    errors = []
    calls = 0
    [true, false].each do |aware|
      models = world.models.fetch(aware)
      RecordMatrix.combos.each do |combo|
        RecordMatrix.with_combo(combo) do
          RecordMatrix::QUERIES.each do |name, (build, option_sets)|
            option_sets.each do |options|
              calls += 1
              label = "#{adapter} #{aware ? 'zone aware' : 'not zone aware'} #{combo.inspect} #{name} #{options.inspect}"
              compare(label, -> { build.call(models) }, options, errors)
            end
          end
        end
      end
    end
    puts "\n#{adapter}: #{calls} encodings compared, " \
         "#{errors.size} raising the same error on both sides" \
         "#{errors.map { |label, e| "\n  #{e[1]}: #{e[2][0, 100]} in #{label[0, 200]}" }.uniq.first(5).join}"
    assert_operator errors.size, :<, calls / 20, "the matrix is meant to encode"
  end
end
