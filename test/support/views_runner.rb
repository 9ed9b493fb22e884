# frozen_string_literal: true

require "fileutils"
require "rack/mock"

# Runs a scenario of Rack requests against the booted Kit::ViewsApp and returns
# what each request gave, in a form both worlds can Marshal and compare. The
# same code runs in the oracle child (the jbuilder gem) and in the test
# process (Jetson).
#
# A scenario is a Hash:
#   requests:        paths ("/cases/partials"), or [path, { env key => value }]
#   store:           the cache for the scenario, made anew (and cleared):
#                    [:memory_store], [:file_store, dir], [:redis_cache_store, { url: }],
#                    [:failing_store, { fail: [:read, :write_multi, ...] }]
#                    (default [:memory_store]); [:keep] keeps the last one;
#                    options[:per_world] is merged for the world running it
#   perform_caching: controller.perform_caching (default true)
#   settings:        ActiveSupport::JSON::Encoding settings for the scenario
#   lookup_handlers: JbuilderTemplate.template_lookup_options[:handlers]
#   jbuilder:        class-wide defaults: { key_format: [args, kwargs], ignore_nil:, deep_format_keys: }
#   events:          record ActionView's and the fragment cache's events
#   debug_events:    also subscribe to "!render_template.action_view"
#   instrument_hook: with no subscriber, ActiveSupport::Notifications.instrument
#                    replaced for the request by one that always reaches the
#                    instrumenter and records the render events passing
#                    through it, as APM agents (AppSignal) replace it
#   entries:         report the store's keys afterwards (memory/failing stores)
module ViewsRunner
  EVENTS = %w[render_template.action_view render_partial.action_view render_collection.action_view
              render_layout.action_view read_fragment.action_controller write_fragment.action_controller].freeze
  DEBUG_EVENT = "!render_template.action_view"

  # A store whose chosen operations raise, for the bad-input tests.
  class FailingStore < ActiveSupport::Cache::MemoryStore
    def initialize(fail: [], **options)
      super(**options)
      @fail = fail
    end

    %i[read write read_multi write_multi fetch fetch_multi].each do |operation|
      define_method(operation) do |*args, **options, &block|
        raise IOError, "cache store down (#{operation})" if @fail.include?(operation)

        super(*args, **options, &block)
      end
    end
  end

  class << self
    # The store of the last scenario, as it was left.
    attr_reader :store

    def perform(scenario)
      return { dependencies: dependencies(scenario[:tracker]) } if scenario[:tracker]
      return { digests: digests(scenario[:digests]) } if scenario[:digests]

      with_store(scenario[:store] || [:memory_store]) do |store|
        with_settings(scenario) do
          expiries = {}
          outcomes = recording_expiries(store, expiries) do
            Array(scenario[:requests]).map { |request| run_request(request, scenario) }
          end
          entries = scenario[:entries] ? store_keys(store, expiries) : nil
          { outcomes: outcomes, entries: entries }
        end
      end
    end

    private

    # [name, source] pairs through Jbuilder::DependencyTracker, each as a
    # .json.jbuilder template found in the app's view paths.
    def dependencies(items)
      ActionView::Base # its on_load hooks define (and, in Jetson, register) the tracker
      view_paths = ActionController::Base.view_paths
      items.map do |name, source|
        template = ActionView::Template.new(source, "#{name}.json.jbuilder", JbuilderHandler, locals: [],
                                            format: :json, virtual_path: name)
        Jbuilder::DependencyTracker.call(name, template, view_paths)
      rescue StandardError => e
        [:error, e.class.name, e.message]
      end
    end

    # ActionView's digest of each template (name) in dir, as cache! keys
    # get it; after a change of files, call again (caches are cleared).
    def digests(spec)
      ActionView::LookupContext::DetailsKey.clear
      finder = ActionController::Base.new.lookup_context
      finder.prepend_view_paths([spec[:dir]])
      finder.formats = [:json]
      spec[:names].map { |name| ActionView::Digestor.digest(name: name, format: :json, finder: finder) }
    end

    def run_request(request, scenario)
      path, env = request.is_a?(Array) ? request : [request, {}]
      events = []
      subscriptions = subscribe(events, scenario) if scenario[:events] || scenario[:debug_events]
      hooked = hook_instrument(events) if scenario[:instrument_hook]
      begin
        status, headers, body = Kit::ViewsApp::Application.call(Rack::MockRequest.env_for(path, env))
        text = +""
        body.each { |part| text << part }
        body.close if body.respond_to?(:close)
        { status: status, content_type: headers["content-type"] || headers["Content-Type"], body: text,
          events: events }
      rescue Exception => e # rubocop:disable Lint/RescueException -- SyntaxError too
        { error: [e.class.name, normalize(e.message)], cause: e.cause && e.cause.class.name, events: events,
          where: error_location(e) }
      ensure
        subscriptions&.each { |subscription| ActiveSupport::Notifications.unsubscribe(subscription) }
        ActiveSupport::Notifications.define_singleton_method(:instrument, hooked) if hooked
      end
    end

    # Replaces ActiveSupport::Notifications.instrument as an agent does;
    # returns the original, which run_request puts back.
    def hook_instrument(events)
      original = ActiveSupport::Notifications.method(:instrument)
      recorded = EVENTS + [DEBUG_EVENT]
      runner = self
      ActiveSupport::Notifications.define_singleton_method(:instrument) do |name, payload = {}, &block|
        instrumenter.instrument(name, payload) { block&.call(payload) }
      ensure
        events << runner.__send__(:event, name, payload) if recorded.include?(name)
      end
      original
    end

    def subscribe(events, scenario)
      names = EVENTS + (scenario[:debug_events] ? [DEBUG_EVENT] : [])
      names.map do |name|
        ActiveSupport::Notifications.subscribe(name) do |event_name, _start, _finish, _id, payload|
          events << event(event_name, payload)
        end
      end
    end

    # A fragment key's template digest is left out: the jbuilder gem (2.15.1)
    # registers no dependency tracker for .jbuilder templates, so its digests
    # leave out the partials a template renders; Jetson's include them
    # (dependency_tracker_test.rb compares the trackers themselves).
    def event(name, payload)
      identifier = payload[:identifier].to_s.delete_prefix(Kit::ViewsApp.root)
      key = payload[:key] && normalize(payload[:key].sub(/:\h{32}\//, ":DIGEST/"))
      [name, identifier, payload[:count], payload[:cache_hits], payload[:cache_hit], payload[:layout],
       payload[:locals]&.keys&.map(&:to_s)&.sort, key, payload[:exception]&.first].compact
    end

    # ActionView::Template::Error's template and line, and the place of the
    # first frame in a view (file and line: the method named there is a
    # Ruby method of the jbuilder gem on one side and may be one of Jetson's
    # C methods, which Ruby places at their caller, on the other).
    def error_location(error)
      frame = error.backtrace&.find { |line| line.start_with?(Kit::ViewsApp.views) }
      template = error.respond_to?(:file_name) ? [error.file_name.to_s.delete_prefix(Kit::ViewsApp.root), error.line_number] : nil
      [template, frame && frame.delete_prefix(Kit::ViewsApp.root)[/\A[^:]+:\d+/]]
    end

    # Object addresses differ between processes; error_highlight's snippet
    # of the line that raised is a line of the jbuilder gem or ActionView on
    # one side and of Jetson on the other, unless the line is in a view; and
    # did_you_mean's suggestions depend on what each process loaded.
    def normalize(message)
      message = message.sub(/\n\n[^\n]*\n *\^+ *\z/, "")
      message = message.sub(/\nDid you mean\?.*\z/m, "")
      message.gsub(/0x\h{8,16}/, "0xADDR")
    end

    def with_store(spec)
      kind, options = spec
      store = kind == :keep ? (@store || raise("no store to keep")) : make_store(kind, options || {})
      @store = store
      saved = [Rails.cache, ActionView::PartialRenderer.collection_cache]
      Rails.cache = store
      ActionView::PartialRenderer.collection_cache = store
      yield store
    ensure
      Rails.cache, ActionView::PartialRenderer.collection_cache = saved if saved
    end

    # options[:per_world] holds what differs between the two processes (a
    # directory, a Redis database), by world.
    def make_store(kind, options)
      options = options.merge(options.fetch(:per_world, {}).fetch(Kit::ViewsApp.world.to_sym, {})).except(:per_world)
      keep = options.delete(:keep_entries)
      store = case kind
              when :failing_store then FailingStore.new(**options)
              when :file_store then ActiveSupport::Cache.lookup_store(:file_store, options.delete(:dir), **options)
              else ActiveSupport::Cache.lookup_store(kind, **options)
              end
      clear_store(store) unless keep
      store
    end

    # Rails main's RedisCacheStore (on redis-client, no longer the redis gem)
    # clears a store without a namespace with flushdb, which redis-client's
    # clients do not define (NoMethodError): there the command itself.
    def clear_store(store)
      redis = store.redis if store.is_a?(ActiveSupport::Cache::RedisCacheStore) && !store.options[:namespace]
      return store.clear unless redis && redis.then { !_1.respond_to?(:flushdb) }

      redis.then { _1.call("FLUSHDB") }
    end

    # The entries of a memory store (incl. FailingStore): key, the class of
    # the cached value, its version (a record's cache_version) and its time
    # to live: the expires_in it was last
    # written with (see recording_expiries), else the time left to the 10 s.
    def store_keys(store, expiries = {})
      data = store.instance_variable_get(:@data)
      return nil unless data

      now = Time.now.to_f
      data.map do |key, entry|
        ttl = entry.expires_at && (expiries[key] || (((entry.expires_at - now) / 10.0).round * 10))
        { key: key, class: entry.value.class.name, ttl: ttl, value: entry.value, version: entry.version }
      end.sort_by { |entry| entry[:key] }
    end

    # Records, by the store's key, the expires_in of each write the store
    # reports (its cache_write and cache_write_multi events carry the write's
    # options), so that times to live compare however long the requests take
    # (under valgrind, minutes).
    def recording_expiries(store, expiries)
      single = ActiveSupport::Notifications.subscribe("cache_write.active_support") do |*, payload|
        expiries[payload[:key]] = payload[:expires_in]&.to_i
      end
      multi = ActiveSupport::Notifications.subscribe("cache_write_multi.active_support") do |*, payload|
        options = payload.except(:key, :store)
        payload[:key].each_key { |name| expiries[store.__send__(:normalize_key, name, options)] = payload[:expires_in]&.to_i }
      end
      yield
    ensure
      ActiveSupport::Notifications.unsubscribe(single)
      ActiveSupport::Notifications.unsubscribe(multi)
    end

    def with_settings(scenario)
      encoding = ActiveSupport::JSON::Encoding
      names = %i[escape_html_entities_in_json use_standard_json_time_format time_precision]
      # ActiveSupport 8.1's (false under its load_defaults "8.1")
      names << :escape_js_separators_in_json if encoding.respond_to?(:escape_js_separators_in_json)
      saved_settings = names.to_h { |name| [name, encoding.public_send(name)] }
      saved_handlers = JbuilderTemplate.template_lookup_options
      saved_caching = [ActionController::Base.perform_caching, ActionController::API.perform_caching]
      saved_versioning = ActiveRecord::Base.cache_versioning
      ActiveRecord::Base.cache_versioning = scenario[:cache_versioning] if scenario.key?(:cache_versioning)
      (scenario[:settings] || {}).each { |name, value| encoding.public_send(:"#{name}=", value) }
      if scenario[:lookup_handlers]
        JbuilderTemplate.template_lookup_options = { handlers: scenario[:lookup_handlers] }
      end
      caching = scenario.fetch(:perform_caching, true)
      ActionController::Base.perform_caching = caching
      ActionController::API.perform_caching = caching
      configure_jbuilder(scenario[:jbuilder]) if scenario[:jbuilder]
      yield
    ensure
      saved_settings.each { |name, value| encoding.public_send(:"#{name}=", value) }
      JbuilderTemplate.template_lookup_options = saved_handlers
      ActionController::Base.perform_caching, ActionController::API.perform_caching = saved_caching
      ActiveRecord::Base.cache_versioning = saved_versioning
      reset_jbuilder if scenario[:jbuilder]
    end

    def configure_jbuilder(config)
      if config[:key_format]
        args, kwargs = config[:key_format]
        Jbuilder.key_format(*args, **(kwargs || {}))
      end
      Jbuilder.ignore_nil(config[:ignore_nil]) if config.key?(:ignore_nil)
      Jbuilder.deep_format_keys(config[:deep_format_keys]) if config.key?(:deep_format_keys)
    end

    def reset_jbuilder
      Jbuilder.class_variable_set(:@@key_formatter, nil)
      Jbuilder.ignore_nil(false)
      Jbuilder.deep_format_keys(false)
    end
  end
end
