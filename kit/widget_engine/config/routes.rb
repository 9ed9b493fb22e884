# frozen_string_literal: true

WidgetEngine::Engine.routes.draw do
  resources :widgets, only: %i[index show] do
    get :summary, on: :collection
  end
end
