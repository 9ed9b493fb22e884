# frozen_string_literal: true

# As engines with Jbuilder views do: the jbuilder gem required from the
# engine's own lib, at Bundler.require time or whenever the app requires
# the engine.
require "jbuilder"
require "widget_engine/engine"
require "widget_engine/jbuilder_helpers"

# The kit's engine: widgets, their prices and a summary, as JSON.
module WidgetEngine
end
