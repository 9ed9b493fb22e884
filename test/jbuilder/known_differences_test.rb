# frozen_string_literal: true

require "minitest/autorun"
require "jetson/jbuilder"

# Where Jetson::Builder knowingly differs from Jbuilder (README, "Jbuilder
# compatibility"): the value returned by the DSL calls that build a nested
# object or an Array. Jbuilder returns its internal Hash or Array; Jetson keeps
# no such objects (building them for every block would cost what Jetson saves),
# so these calls return nil. A plain `json.key value` returns value, as
# Jbuilder's does, and array! returns Jbuilder's Array (a copy) outside views
# (test/jbuilder/dsl_test.rb compares it with the jbuilder gem's).
class JbuilderKnownDifferencesTest < Minitest::Test
  def test_plain_set_returns_the_value
    returned = nil
    Jbuilder.new { |json| returned = json.a "x" }
    assert_equal "x", returned
  end

  def test_block_forms_return_nil
    returned = {}
    json = Jbuilder.new do |j|
      returned[:block] = j.a { j.b 1 }
      returned[:collection] = j.c([1]) { |x| j.d x }
    end
    assert_equal({ block: nil, collection: nil }, returned)
    assert_equal '{"a":{"b":1},"c":[{"d":1}]}', json.target!
  end

  def test_child_and_merge_return_nil
    returned = []
    Jbuilder.new do |j|
      j.array!([1])
      returned << j.child! { j.x 1 }
      returned << j.merge!([2])
    end
    assert_equal [nil, nil], returned
  end

  # A copy where the block built the elements: the document stays native,
  # so changing what array! returned does not change the document, as it
  # would Jbuilder's.
  def test_array_returns_a_copy
    returned = nil
    json = Jbuilder.new { |j| returned = j.array!([1, 2]) { |x| j.x x } }
    returned << 3
    assert_equal '[{"x":1},{"x":2}]', json.target!
  end
end
