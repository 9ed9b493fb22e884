# frozen_string_literal: true

require "jetson/builder"

# `require "jetson/jbuilder"`: ::Jbuilder is Jetson::Builder, so existing
# Jbuilder code (Jbuilder.new, Jbuilder.encode, Jbuilder.key_format,
# ignore_nil, deep_format_keys, Jbuilder::KeyFormatter and its errors) runs on
# Jetson with Jbuilder's output. It stands in for the jbuilder gem's builder:
# load it instead of `require "jbuilder"`, not after it.
if defined?(::Jbuilder) && !(::Jbuilder <= Jetson::Builder)
  raise LoadError, "jetson/jbuilder defines Jbuilder, but the jbuilder gem's Jbuilder is already loaded " \
                   "(require jetson/jbuilder instead of jbuilder)"
end

class Jbuilder < Jetson::Builder
  ::Jetson::Builder.define_errors(self)
  # What attributes! holds where nothing was set (child! {}).
  Blank = ::Jetson::Builder::Blank
  Blank.shown_as = "Jbuilder::Blank"
end
