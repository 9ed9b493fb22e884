# frozen_string_literal: true

module WidgetEngine
  # The engine's API: views for index and show, Jbuilder code for summary.
  class WidgetsController < ActionController::Base
    def index
      @widgets = Widget.all
    end

    def show
      @widget = Widget.find(params[:id])
    end

    def summary
      render json: PriceBuilder.summary(Widget.all)
    end
  end
end
