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
  # The errors carry Jbuilder's names (rescue Jetson::Builder::NullError
  # catches them too).
  class NullError < Jetson::Builder::NullError; end
  class ArrayError < Jetson::Builder::ArrayError; end
  class MergeError < Jetson::Builder::MergeError; end
end
