# frozen_string_literal: true

require "minitest/autorun"
require "jetson/jbuilder"

# Key names met by method_missing become methods of Jetson::Builder (faster
# calls afterwards). Nothing about a builder's output may depend on that.
class JbuilderKeyMethodsTest < Minitest::Test
  class Renaming < Jbuilder
    def method_missing(name, *args, &block)
      name == :title ? super(:heading, *args, &block) : super
    end
  end

  def test_a_key_method_renders_as_method_missing_did
    first = Jbuilder.encode { |json| json.kmt_title 1; json.kmt_title 2 }
    assert Jetson::Builder.method_defined?(:kmt_title)
    assert_equal first, Jbuilder.encode { |json| json.kmt_title 1; json.kmt_title 2 }
    assert_equal '{"kmt_title":2}', first
  end

  def test_a_subclass_with_its_own_method_missing_still_gets_every_key
    Jbuilder.encode { |json| json.title "defined now" }
    assert Jetson::Builder.method_defined?(:title)
    out = Renaming.encode { |json| json.title "x"; json.name "y" }
    assert_equal '{"heading":"x","name":"y"}', out
  end

  def test_conversion_and_private_names_stay_undefined
    Jbuilder.encode { |json| json.to_kmt 1; json._kmt 2; json.initialize 3 }
    refute Jetson::Builder.method_defined?(:to_kmt)
    refute Jetson::Builder.method_defined?(:_kmt)
    assert_equal '{"initialize":3}', Jbuilder.encode { |json| json.initialize 3 }
  end
end
