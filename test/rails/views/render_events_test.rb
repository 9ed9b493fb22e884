# frozen_string_literal: true

require "test_helper"
require "support/subprocess"
require "jetson/views/render_events"

# Jetson::Views::RenderEvents: an event is owed to subscribers, and to an
# agent that has its own `instrument` in either of the two places agents put
# one, subscribed or not.
class ViewsRenderEventsTest < Minitest::Test
  include JetsonSubprocess

  NAME = "render_partial.action_view"

  def test_owed_only_to_a_subscriber_by_default
    refute Jetson::Views::RenderEvents.instrument_redefined?
    refute Jetson::Views::RenderEvents.owed?(NAME) unless ActiveSupport::Notifications.notifier.listening?(NAME)
    subscription = ActiveSupport::Notifications.subscribe(NAME) { |*| nil }
    assert Jetson::Views::RenderEvents.owed?(NAME)
  ensure
    ActiveSupport::Notifications.unsubscribe(subscription) if subscription
  end

  def test_owed_when_notifications_instrument_is_replaced
    original = ActiveSupport::Notifications.method(:instrument)
    ActiveSupport::Notifications.define_singleton_method(:instrument) do |name, payload = {}, &block|
      instrumenter.instrument(name, payload) { block&.call(payload) }
    end
    assert Jetson::Views::RenderEvents.instrument_redefined?
    assert Jetson::Views::RenderEvents.owed?(NAME)
  ensure
    ActiveSupport::Notifications.define_singleton_method(:instrument, original)
    refute Jetson::Views::RenderEvents.instrument_redefined?
  end

  # A module prepended to Instrumenter cannot be taken back: in a child.
  def test_owed_when_instrumenter_instrument_is_prepended
    out = ruby_output(<<~RUBY)
      require "active_support"
      require "active_support/notifications"
      require "jetson/views/render_events"
      before = Jetson::Views::RenderEvents.owed?("#{NAME}")
      ActiveSupport::Notifications::Instrumenter.prepend(Module.new { def instrument(name, payload = {}) = super })
      print [before, Jetson::Views::RenderEvents.owed?("#{NAME}")].inspect
    RUBY
    assert_equal "[false, true]", out
  end
end
