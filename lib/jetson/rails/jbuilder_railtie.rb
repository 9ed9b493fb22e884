# frozen_string_literal: true

require "rails"
require "jetson/rails/jbuilder_template"

module Jetson
  module Rails
    # What the jbuilder gem's Railtie does, for apps that load
    # `jetson/jbuilder` in its place (`gem "jetson", require: "jetson/jbuilder"`):
    # .json.jbuilder views render with JbuilderTemplate, cache digests see
    # the partials they render, API controllers (ActionController::API)
    # render views, and `rails g scaffold` writes .json.jbuilder views.
    class JbuilderRailtie < ::Rails::Railtie
      initializer "jetson.jbuilder" do
        ActiveSupport.on_load(:action_view) do
          ActionView::Template.register_template_handler(:jbuilder, JbuilderHandler)
          require "action_view/dependency_tracker"
          require "jetson/rails/dependency_tracker"
          ActionView::DependencyTracker.register_tracker(:jbuilder, ::Jbuilder::DependencyTracker)
        end

        # ActionController::API leaves views out; Jbuilder views need them,
        # with implicit rendering (an action without `render` renders its
        # view) and the two cache helpers views call on the controller.
        ActionController::ApiRendering.include(ActionView::Rendering) if defined?(ActionController::ApiRendering)
        ActiveSupport.on_load(:action_controller_api) do
          include ActionController::Helpers
          include ActionController::ImplicitRender
          helper_method :combined_fragment_cache_key
          helper_method :view_cache_dependencies
        end
      end

      # `render json_stream: records, partial:, as:` renders each batch with
      # the app's .json.jbuilder partial (lib/jetson/rails/streaming.rb).
      initializer "jetson.jbuilder.json_stream" do
        ActiveSupport.on_load(:action_controller) do
          require "jetson/rails/streaming"
          Jetson::Rails::Streaming.install
        end
      end

      generators do |app|
        ::Rails::Generators.configure!(app.config.generators)
        ::Rails::Generators.hidden_namespaces.uniq!
        require "jetson/rails/generators"
      end
    end
  end
end
