# frozen_string_literal: true

require "test_helper"
require "jetson/rails"
require "support/rails_oracle"
require "support/random_floats"

# Rails mode's Floats: random doubles (test/support/random_floats.rb) through
# ActiveSupport's stock encoders (each one this ActiveSupport has; the
# oracle is RailsOracle's) and through Jetson::RailsEncoder writing that
# encoder's bytes: ActiveSupport::JSON.encode of the double, of {"v" => x},
# of {v: x} and of Arrays of 7, and the Array's to_json; bytes compared.
# The full run is script/float_differential's Rails-mode pass.
#
#   JETSON_RAILS_FLOATS=N  doubles per encoder (default 50_000)
#   JETSON_FLOAT_SEED=S    the Random's seed (default: minitest's --seed)
class RailsFloatRulesTest < Minitest::Test
  DOUBLES = Integer(ENV.fetch("JETSON_RAILS_FLOATS", ENV["JETSON_MEMCHECK"] ? "1000" : "50000"))
  DEFAULT = Jetson::Rails::EncodingRules.default_encoder

  def teardown = RailsOracle.restore_encoders

  def seed = seed_from("JETSON_FLOAT_SEED")

  # Every document encoded by `encoder` (to_json for :to_json).
  def encode_all(encoder, documents)
    ActiveSupport.json_encoder = encoder
    documents.map { |kind, _, doc| kind == :to_json ? doc.to_json : ActiveSupport::JSON.encode(doc) }
  ensure
    ActiveSupport.json_encoder = DEFAULT
  end

  def test_random_doubles_against_every_stock_encoder
    failures = []
    compared = 0
    RailsOracle.reference_encoders.each do |encoder|
      Jetson::Rails.reference_encoder = encoder
      stock = RailsOracle.stock(encoder)
      rng = Random.new(seed)
      DOUBLES.times.each_slice(7000) do |slice|
        doubles = slice.map { RandomFloats.draw(rng).last }
        documents = doubles.flat_map { |x| [[:value, x, x], [:string_key, x, { "v" => x }], [:symbol_key, x, { v: x }]] }
        doubles.each_slice(7) { |a| documents << [:array, a, a] << [:to_json, a, a] }
        expected = encode_all(stock, documents)
        actual = encode_all(Jetson::RailsEncoder, documents)
        documents.each_with_index do |(kind, x), i|
          compared += 1
          next if expected[i] == actual[i] || failures.size >= 10

          failures << "#{encoder.name}, #{kind} of #{Array(x).map { RandomFloats.hex(_1) }.join(',')} (bits): " \
                      "ActiveSupport #{expected[i].inspect[0, 300]}, Jetson #{actual[i].inspect[0, 300]}"
        end
      end
    end
    assert_empty failures, "ActiveSupport #{ActiveSupport.version}, json #{JSON::VERSION}, seed #{seed}:\n" \
                           "#{failures.join("\n")}"
    assert_operator compared, :>=, DOUBLES * 3 * RailsOracle.reference_encoders.size
  end
end
