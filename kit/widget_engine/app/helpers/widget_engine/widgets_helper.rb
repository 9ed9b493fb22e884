# frozen_string_literal: true

module WidgetEngine
  # A view helper of the engine's, called from its .json.jbuilder views.
  module WidgetsHelper
    def widget_label(widget)
      "#{widget.name} (##{widget.id})"
    end
  end
end
