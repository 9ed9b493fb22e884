# frozen_string_literal: true

require "rails/engine"

module WidgetEngine
  # Mounted by the kit's host app at /shop.
  class Engine < ::Rails::Engine
    isolate_namespace WidgetEngine
  end
end
