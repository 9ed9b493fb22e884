# frozen_string_literal: true

require "jetson/dependencies"
Jetson::Dependencies.load_gem("active_support", "jetson/jbuilder", "Jbuilder's output is ActiveSupport's JSON encoding")
require "jetson/builder"

# `require "jetson/jbuilder"`: ::Jbuilder is Jetson::Builder, so existing
# Jbuilder code (Jbuilder.new, Jbuilder.encode, Jbuilder.key_format,
# ignore_nil, deep_format_keys, Jbuilder::KeyFormatter and its errors) runs on
# Jetson with Jbuilder's output. In a Rails app (required after Rails, as
# Bundler does for `gem "jetson", require: "jetson/jbuilder"`) it also brings
# the views: the :jbuilder template handler with JbuilderTemplate, partials,
# fragment caching, the dependency tracker and the scaffold generators (see
# Jetson::Rails::JbuilderRailtie). It stands in for the jbuilder gem: load it
# instead of `require "jbuilder"`, not after it.
if defined?(::Jbuilder) && !(::Jbuilder <= Jetson::Builder)
  raise LoadError, "jetson/jbuilder defines Jbuilder, but the jbuilder gem's Jbuilder is already loaded: " \
                   "remove the jbuilder gem from the Gemfile (or give it `require: false`) and require " \
                   "jetson/jbuilder in its place"
end

# The jbuilder gem's Jbuilder, on {Jetson::Builder} (`require
# "jetson/jbuilder"`): the same DSL and output, so existing code runs
# unchanged. `Jbuilder::NullError`, `ArrayError` and `MergeError` are
# Jbuilder's errors, `Jbuilder::KeyFormatter` is {Jetson::Builder::KeyFormatter}.
#
# @example
#   require "jetson/jbuilder"
#   Jbuilder.encode do |json|
#     json.id 1
#     json.tags %w[a b]
#   end  # => "{\"id\":1,\"tags\":[\"a\",\"b\"]}"
class Jbuilder < Jetson::Builder
  ::Jetson::Builder.define_errors(self)
  # What attributes! holds where nothing was set (child! {}).
  Blank = ::Jetson::Builder::Blank
  Blank.shown_as = "Jbuilder::Blank"
end

# In a Rails app the views render through ActionView.
if defined?(::Rails::Railtie)
  Jetson::Dependencies.load_gem("action_view", "jetson/jbuilder", "its .json.jbuilder views render through ActionView")
  require "jetson/rails/jbuilder_railtie"
end
