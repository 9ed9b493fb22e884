# frozen_string_literal: true

# For the Oj child processes (test/records/oj_records_test.rb,
# test/rails/oj_rails_mode_test.rb): every value Jetson hands to Oj,
# counted, so that a test can assert the native path wrote the rest.
# Loaded after `require "oj"`.
module CountOjCalls
  class << self
    attr_accessor :calls
  end
  self.calls = 0

  def encode(*args)
    CountOjCalls.calls += 1
    super
  end
end
Oj::Rails.singleton_class.prepend(CountOjCalls)
