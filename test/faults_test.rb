# frozen_string_literal: true

require "test_helper"

# Faults found by script/fuzz (each with the case that found it) and faults
# an app meets: a hostile option, an io that fails half-way, an interrupt.
class FaultsTest < Minitest::Test
  # script/fuzz --seed 1 --case 255: buffer_initial_length: 2**40 made the
  # first heap buffer 1 TiB (NoMemoryError) where json writes the document.
  def test_a_huge_buffer_initial_length_is_only_a_hint
    doc = ["x" * 100_000, { "k" => "y" * 5000 }]
    [2**40, (2**62) - 1].each do |length| # larger ones are TypeErrors, as in json
      assert_equal JSON.generate(doc), Jetson.generate(doc, buffer_initial_length: length)
      assert_equal JSON.generate(doc), Jetson::State.new(buffer_initial_length: length).generate(doc)
    end
  end
end
