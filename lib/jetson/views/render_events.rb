# frozen_string_literal: true

require "active_support/notifications"

module Jetson
  module Views
    # Which of ActionView's render events a partial run natively still owes
    # (ext/jetson/builder/view_events.c sends them through
    # ActiveSupport::Notifications.instrument, as ActionView does).
    #
    # An event is owed when a subscriber listens to it, or when
    # `instrument` itself has been redefined: APM agents such as AppSignal
    # replace ActiveSupport::Notifications.instrument (so that it reaches
    # the instrumenter whether anyone subscribed or not) or prepend their
    # own Instrumenter#instrument, and record every event that passes
    # through it. ActionView calls `instrument` for every partial, so an app
    # with such an agent sees its partials there; skipping the call because
    # the notifier has no subscriber would hide them from it.
    #
    # Redefinition is told by where the methods are defined, not by a list
    # of agents: ActiveSupport defines `instrument` in the same file as its
    # neighbours (`instrumenter`, `build_handle`), and an agent's version
    # lives in the agent's file.
    #
    # @api private
    module RenderEvents
      class << self
        # @param name [String] an event's name ("render_partial.action_view")
        # @return [Boolean] whether an instrument call for it reaches anyone
        def owed?(name)
          instrument_redefined? || ::ActiveSupport::Notifications.notifier.listening?(name)
        end

        # @return [Boolean] whether ActiveSupport::Notifications.instrument or
        #   Instrumenter#instrument is not ActiveSupport's own
        def instrument_redefined?
          notifications = ::ActiveSupport::Notifications
          instrumenter = notifications::Instrumenter
          !same_file?(notifications.method(:instrument), notifications.method(:instrumenter)) ||
            !same_file?(instrumenter.instance_method(:instrument), instrumenter.instance_method(:build_handle))
        end

        private

        def same_file?(method, neighbour)
          location = method.source_location
          location && location[0] == neighbour.source_location&.first
        end
      end
    end
  end
end
