# frozen_string_literal: true

require "jetson/builder/builder"

require "jetson/builder/jbuilder_gem"

# jetson/jbuilder stands in for the jbuilder gem: from here on the gem's
# files load Jetson's (stand_in/), and where the gem was loaded first its
# classes make way for Jetson's (Jetson::Builder::JbuilderGem).
Jetson::Builder::JbuilderGem.stand_in
Jetson::Builder::JbuilderGem.take_over

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
  # The jbuilder gem's version where the bundle has the gem (Jetson stands
  # in for that release), else the release whose behaviour Jetson follows
  # ({Jetson::Builder::JbuilderGem.version}). `require "jbuilder/version"`
  # defines it too, as in the gem.
  VERSION = ::Jetson::Builder::JbuilderGem.version
  ::Jetson::Builder.define_errors(self)
  # What attributes! holds where nothing was set (child! {}).
  Blank = ::Jetson::Builder::Blank
  Blank.shown_as = "Jbuilder::Blank"
  ::Jetson::Builder::JbuilderGem.carry_over(self)
end
