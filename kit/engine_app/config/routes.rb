# frozen_string_literal: true

Rails.application.routes.draw do
  mount WidgetEngine::Engine => "/shop"
  get "status" => "status#show", defaults: { format: :json }
end
