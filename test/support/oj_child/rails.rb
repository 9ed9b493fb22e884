# frozen_string_literal: true

# The start of a child Ruby under Oj's Rails encoder (support/oj_child.rb):
# ActiveSupport's JSON loaded, then Oj made its encoder, before Jetson's
# entry point is required.
require "bundler/setup"
require "json"
require "oj"
require "active_support"
require "active_support/json"
require "active_support/core_ext"
Oj.optimize_rails
