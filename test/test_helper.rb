# frozen_string_literal: true

$LOAD_PATH.unshift File.expand_path("../lib", __dir__)
require "minitest/autorun"
require "json"
require "jetson"

# What tests of every task use.
module JetsonTestHelpers
  # The checkout's root (a test class names it as ROOT).
  ROOT = File.expand_path("..", __dir__)

  # The seed of a test's random values: the environment's `variable` where
  # it is set (to repeat a failure's run), else minitest's.
  def seed_from(variable) = Integer(ENV[variable] || Minitest.seed)

  # A subclass of base that answers `name` (an anonymous model has none,
  # and ActiveRecord and ActiveModel read it for keys, roots and errors),
  # the block its body.
  def named_subclass(base, name, &body)
    Class.new(base) do
      define_singleton_method(:name) { name }
      class_eval(&body) if body
    end
  end
end
Minitest::Test.include(JetsonTestHelpers)
