# frozen_string_literal: true

require "rails"
require "jetson/views/jbuilder_template"

module Jetson
  # Jbuilder views in a Rails app (lib/jetson/views/), on Jetson::Builder:
  # the :jbuilder template handler (JbuilderTemplate, JbuilderHandler),
  # partials (PartialRenderer), fragment caching with JSON text
  # (FragmentCache, CachedCollection, CollectionKeys), the dependency tracker
  # and the scaffold generators. Loaded by `require "jetson/jbuilder"` in a
  # Rails app.
  module Views
    # What the jbuilder gem's Railtie does, for apps that load
    # `jetson/jbuilder` in its place (`gem "jetson", require: "jetson/jbuilder"`):
    # .json.jbuilder views render with JbuilderTemplate, cache digests see
    # the partials they render, API controllers (ActionController::API)
    # render views, and `rails g scaffold` writes .json.jbuilder views.
    # (`render json_stream:`, partials included, is Jetson::Railtie's: it
    # sits above the views.)
    class Railtie < ::Rails::Railtie
      initializer "jetson.jbuilder" do
        ActiveSupport.on_load(:action_view) do
          ActionView::Template.register_template_handler(:jbuilder, JbuilderHandler)
          require "action_view/dependency_tracker"
          require "jetson/views/dependency_tracker"
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

      generators do |app|
        ::Rails::Generators.configure!(app.config.generators)
        ::Rails::Generators.hidden_namespaces.uniq!
        require "jetson/views/generators"
      end
    end
  end
end
