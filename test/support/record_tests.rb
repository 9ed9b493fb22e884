# frozen_string_literal: true

require "support/rails_oracle"
require "support/record_matrix"

# What the records tests (test/records/) share: ActiveSupport's stock
# encoder back in place after every test, and a test per adapter of
# RecordMatrix, skipped with the reason where its database could not be
# started.
module RecordTests
  STOCK = RailsOracle.stock # the encoder ActiveSupport picks in this bundle

  def self.included(base)
    base.extend(ClassMethods)
  end

  def teardown
    ActiveSupport.json_encoder = STOCK
    super
  end

  # The adapter's world (RecordMatrix.world), or the test skipped.
  def world_of(adapter)
    found = RecordMatrix.databases.assoc(adapter)
    skip "#{adapter}: #{found[1]}" unless found[1].is_a?(Hash)
    RecordMatrix.world(adapter)
  end

  module ClassMethods
    # test_<adapter><suffix> for every adapter: the block, given the
    # adapter and its world.
    def test_each_adapter(suffix = "", &body)
      RecordMatrix::ADAPTERS.each do |adapter|
        define_method(:"test_#{adapter}#{suffix}") { instance_exec(adapter, world_of(adapter), &body) }
      end
    end
  end
end
