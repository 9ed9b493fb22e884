# frozen_string_literal: true

require "test_helper"
require "jetson/rails"
require "support/rails_graph"
require "support/differential"
require "support/rails_oracle"
require "support/subprocess"

# Rails main keeps the encoder instances ActiveSupport::JSON.encode and
# to_json use without options (and with escape: false) frozen, and makes
# its own encoders Ractor-shareable: Jetson's encoders must work frozen,
# be made shareable, and keep giving the stock encoder's bytes, on every
# Rails (each instance is frozen here by the test, whatever Rails does).
class FrozenEncodersTest < Minitest::Test
  include JetsonSubprocess

  DOCS = 150
  OPTIONS = [nil, { escape: false }, { escape_html_entities: false }, { only: %w[id name a] },
             { "unused" => true }].freeze

  def teardown
    Jetson::Rails.reference_encoder = nil
    ActiveSupport.json_encoder = RailsOracle.stock
  end

  def docs = (0...DOCS).map { |seed| RailsGraph.build(Random.new(seed)) }

  # The bytes or the error's class; warnings (json 2's duplicate keys, which
  # both sides give) kept off the console.
  def outcome(&)
    value, error, = Differential.capturing_warnings(&)
    error ? [:raises, error.class.name] : [:ok, value]
  end

  def assert_same_outcome(expected, actual, message)
    assert_equal expected, actual, message
  end

  def test_a_frozen_rails_encoder_writes_the_stock_encoders_bytes
    RailsOracle.reference_encoders.each do |encoder|
      Jetson::Rails.reference_encoder = encoder
      stock = RailsOracle.stock(encoder)
      OPTIONS.each do |options|
        jetson = Jetson::RailsEncoder.new(options&.dup).freeze
        assert_predicate jetson, :frozen?
        docs.each_with_index do |doc, i|
          assert_same_outcome outcome { stock.new(options&.dup).encode(doc) }, outcome { jetson.encode(doc) },
                              "#{encoder.name}, #{options.inspect}, document #{i}"
        end
      end
    end
  end

  def test_a_rails_encoder_made_ractor_shareable_keeps_encoding
    skip "no Ractor" unless defined?(Ractor)

    [nil, { escape: false }, { escape_html_entities: false }].each do |options|
      jetson = Ractor.make_shareable(Jetson::RailsEncoder.new(options&.dup))
      assert Ractor.shareable?(jetson), "#{options.inspect}: not shareable"
      stock = RailsOracle.stock.new(options&.dup)
      docs.first(40).each_with_index do |doc, i|
        assert_same_outcome outcome { stock.encode(doc) }, outcome { jetson.encode(doc) }, "#{options.inspect}, document #{i}"
      end
    end
  end

  # An instance made (and frozen) under one reference encoder, used after
  # another was named: the other's bytes.
  def test_a_frozen_encoder_follows_a_reference_encoder_named_later
    encoders = RailsOracle.reference_encoders
    skip "one stock encoder in this ActiveSupport" if encoders.size < 2

    encoders.permutation(2).each do |made_under, used_under|
      Jetson::Rails.reference_encoder = made_under
      jetson = Jetson::RailsEncoder.new.freeze
      Jetson::Rails.reference_encoder = used_under
      stock = RailsOracle.stock(used_under).new
      docs.first(60).each_with_index do |doc, i|
        assert_same_outcome outcome { stock.encode(doc) }, outcome { jetson.encode(doc) },
                            "made under #{made_under.name}, used under #{used_under.name}, document #{i}"
      end
    end
  end

  # Installed as ActiveSupport's encoder: ActiveSupport::JSON.encode and
  # to_json through the instances ActiveSupport keeps (frozen on Rails main).
  def test_installed_the_kept_instances_encode
    expected = docs.first(60).map do |doc|
      [outcome { ActiveSupport::JSON.encode(doc) }, outcome { ActiveSupport::JSON.encode(doc, escape: false) },
       outcome { doc.to_json }]
    end
    ActiveSupport.json_encoder = Jetson::RailsEncoder
    docs.first(60).each_with_index do |doc, i|
      actual = [outcome { ActiveSupport::JSON.encode(doc) }, outcome { ActiveSupport::JSON.encode(doc, escape: false) },
                outcome { doc.to_json }]
      expected[i].zip(actual).each { |e, a| assert_same_outcome e, a, "document #{i}" }
    end
  end

  # Jetson::OjEncoder, in a child that calls Oj.optimize_rails: frozen and
  # made shareable, Oj's bytes, natively or (options Oj reads: indent:)
  # through an Oj encoder made for the call.
  OJ_CHILD = <<~'RUBY'
    require "support/oj_child/rails"
    require "jetson/rails"
    require "support/rails_graph"

    def outcome
      [:ok, yield]
    rescue StandardError => e
      [:raises, e.class.name]
    end

    report = { "differ" => [], "compared" => 0, "shareable" => [] }
    [nil, { escape: false }, { indent: 2 }].each do |options|
      frozen = Jetson::OjEncoder.new(options&.dup).freeze
      shareable = defined?(Ractor) ? Ractor.make_shareable(Jetson::OjEncoder.new(options&.dup)) : frozen
      report["shareable"] << (defined?(Ractor) ? Ractor.shareable?(shareable) : true)
      (0...100).each do |seed|
        doc = RailsGraph.build(Random.new(seed))
        oj = outcome { Oj::Rails::Encoder.new(options&.dup).encode(doc) }
        [frozen, shareable].each do |encoder|
          report["compared"] += 1
          ours = outcome { encoder.encode(doc) }
          report["differ"] << [options.inspect, seed, ours, oj] unless ours == oj
        end
      end
    end
    puts JSON.generate(report)
  RUBY

  def test_a_frozen_oj_encoder_writes_ojs_bytes
    skip "oj is not installed" unless Gem.loaded_specs["oj"]

    out = ruby_output(OJ_CHILD, env: { "RUBYLIB" => File.expand_path("..", __dir__) }, quiet: true)
    report = JSON.parse(out.lines.last)
    assert_equal 600, report["compared"]
    assert_equal [true, true, true], report["shareable"]
    assert_empty report["differ"].first(3)
  end
end
