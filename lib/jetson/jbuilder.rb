# frozen_string_literal: true

# `require "jetson/jbuilder"`: ::Jbuilder is Jetson::Builder
# (lib/jetson/builder/), so existing Jbuilder code (Jbuilder.new,
# Jbuilder.encode, Jbuilder.key_format, ignore_nil, deep_format_keys,
# Jbuilder::KeyFormatter and its errors) runs on Jetson with Jbuilder's
# output. In a Rails app (required after Rails, as Bundler does for
# `gem "jetson", require: "jetson/jbuilder"`) it also brings the views
# (lib/jetson/views/: the :jbuilder template handler with JbuilderTemplate,
# partials, fragment caching, the dependency tracker and the scaffold
# generators, see Jetson::Views::Railtie) and Jetson::Railtie. It stands in
# for the jbuilder gem: load it instead of `require "jbuilder"`, not after
# it. An entry point, above every layer it loads.
require "jetson/dependencies"
Jetson::Dependencies.load_gem("active_support", "jetson/jbuilder", "Jbuilder's output is ActiveSupport's JSON encoding")
require "jetson/builder"
require "jetson/builder/jbuilder"

# In a Rails app the views render through ActionView (also where this was
# required before Rails: then when the app is defined).
Jetson::Dependencies.in_rails do
  Jetson::Dependencies.load_gem("action_view", "jetson/jbuilder", "its .json.jbuilder views render through ActionView")
  require "jetson/views/railtie"
end
