# frozen_string_literal: true

# The host app's own .json.jbuilder view, which calls the engine's helper on
# `json`.
class StatusController < ActionController::Base
  def show
    @widgets = WidgetEngine::Widget.all
  end
end
