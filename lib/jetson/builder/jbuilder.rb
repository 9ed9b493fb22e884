# frozen_string_literal: true

require "jetson/builder/builder"

# jetson/jbuilder stands in for the jbuilder gem, whose Jbuilder this would
# reopen as another class: it is loaded instead of `require "jbuilder"`, not
# after it.
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
