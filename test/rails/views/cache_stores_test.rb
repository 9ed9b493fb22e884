# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "json"
require "support/views_diff"
require_relative "../../../kit/redis_server"

# Fragment caching on the stores apps use: :memory_store, :file_store and
# :redis_cache_store (a redis-server of the test's own). Every caching view
# is rendered missing, then hitting, by the jbuilder gem (which caches Ruby
# Hashes) and by Jetson (which caches JSON text in a namespace of its own):
# same bytes and events. Then what Jetson leaves in the store, entries
# another writer left there, and a change of ActiveSupport's settings.
class ViewsCacheStoresTest < Minitest::Test
  include ViewsDiff

  CACHING = (Dir[File.join(Kit::ViewsApp.root, "views/cases/cache*.json.jbuilder")] +
             Dir[File.join(Kit::ViewsApp.root, "views/cases/cached*.json.jbuilder")])
            .map { |path| "/cases/#{File.basename(path, '.json.jbuilder')}" }.sort +
            %w[/api_posts /errors/cached_ok /errors/cache_root_ok]
  NAMESPACED = /\Ajetson:1:[hn][sl]\d+:/

  def test_the_caching_views_are_found
    assert_operator CACHING.size, :>=, 25
  end

  def test_memory_store
    gem_result, jetson_result = assert_same_views({ requests: CACHING + CACHING, events: true, entries: true },
                                                  "memory_store")
    assert_equal ViewsDiff.fragment_names(gem_result[:entries]), ViewsDiff.fragment_names(jetson_result[:entries])
    assert_json_text_entries(jetson_result[:entries])
  end

  # Rails' default since 5.2: a record's key without its timestamp, which
  # goes into the entry's version (with the controller's fragment_cache_key
  # record's, CasesController).
  def test_memory_store_with_cache_versioning
    scenario = { requests: CACHING + CACHING, events: true, entries: true, cache_versioning: true }
    gem_result, jetson_result = assert_same_views(scenario, "cache_versioning")
    versions = jetson_result[:entries].map { |entry| entry[:version] }
    assert(versions.any? { |version| version.to_s.include?("/") }, versions.inspect)
    assert_equal ViewsDiff.fragment_names(gem_result[:entries]), ViewsDiff.fragment_names(jetson_result[:entries])
  end

  def test_memory_store_with_a_namespace_of_its_own
    store = [:memory_store, { namespace: "app" }]
    _, jetson_result = assert_same_views({ requests: CACHING + CACHING, events: true, entries: true, store: store })
    keys = jetson_result[:entries].map { |entry| entry[:key] }
    assert(keys.all? { |key| key.start_with?("app:") }, keys.inspect)
    assert(keys.any? { |key| key.start_with?("app:jetson:1:") }, keys.inspect)
  end

  def test_file_store
    Dir.mktmpdir("jetson-file-store") do |dir|
      store = [:file_store, { per_world: { jbuilder: { dir: "#{dir}/gem" }, jetson: { dir: "#{dir}/jetson" } } }]
      assert_same_views({ requests: CACHING + CACHING, events: true, store: store }, "file_store")
      assert_equal Dir["#{dir}/gem/**/*"].count { |f| File.file?(f) }, Dir["#{dir}/jetson/**/*"].count { |f| File.file?(f) }
    end
  end

  def test_redis_cache_store
    url = redis_url
    store = [:redis_cache_store, { per_world: { jbuilder: { url: "#{url}/1" }, jetson: { url: "#{url}/2" } } }]
    assert_same_views({ requests: CACHING + CACHING, events: true, store: store }, "redis_cache_store")
    values = redis_values("#{url}/2")
    refute_empty values
    values.each do |key, value|
      assert_kind_of String, value, key
      assert JSON.parse(value), key if key.match?(NAMESPACED) && !value.empty?
    end
  end

  # An app moving from the jbuilder gem keeps its cache: Jetson never reads
  # the gem's Hashes (they are outside its namespace) and renders the same
  # bytes; cache_root! entries are JSON text in both, under the same keys.
  def test_entries_the_jbuilder_gem_left_in_a_shared_store
    Dir.mktmpdir("jetson-shared-store") do |dir|
      shared = { requests: CACHING, store: [:file_store, { dir: dir }] }
      gem_result = ViewsOracle.perform(shared)
      jetson_result = ViewsRunner.perform(shared.merge(store: [:file_store, { dir: dir, keep_entries: true }],
                                                       events: true))
      assert_same_outcomes(shared, gem_result, jetson_result, "after the jbuilder gem")
      events = jetson_result[:outcomes][CACHING.index("/cases/cache_block")][:events].map(&:first)
      assert_includes events, "write_fragment.action_controller", "the gem's Hash was read as a fragment"
    end
    url = redis_url
    shared = { requests: CACHING, store: [:redis_cache_store, { url: "#{url}/3" }] }
    gem_result = ViewsOracle.perform(shared)
    jetson_result = ViewsRunner.perform(shared.merge(store: [:redis_cache_store, { url: "#{url}/3", keep_entries: true }]))
    assert_same_outcomes(shared, gem_result, jetson_result, "after the jbuilder gem (redis)")
  end

  # Whatever else is in Jetson's namespace (another version's entries, a
  # truncated write, another object) is a miss: rendered and written again.
  def test_entries_that_are_not_json_text_are_misses
    scenario = { requests: CACHING }
    expected = ViewsOracle.perform(scenario)
    ViewsRunner.perform(scenario)
    garbage = ["not json", "{\"a\":", { "a" => 1 }, "[1] ", "\xFF{}".b, "{\"a\":1}x", 42]
    entries = ViewsRunner.store.instance_variable_get(:@data)
    namespaced = entries.keys.grep(NAMESPACED)
    refute_empty namespaced
    namespaced.each_with_index { |key, i| ViewsRunner.store.write(key, garbage[i % garbage.size]) }
    again = ViewsRunner.perform(scenario.merge(store: [:keep]))
    assert_same_outcomes(scenario, expected, again, "over entries that are not JSON")
    namespaced.each do |key|
      text = ViewsRunner.store.read(key)
      assert(text == "" || JSON.parse(text), "#{key} was not written again: #{text.inspect}")
    end
  end

  # Fragments written under some ActiveSupport settings are not served
  # under others (the jbuilder gem encodes its cached Hashes anew).
  def test_a_change_of_settings_does_not_serve_old_text
    first = { requests: CACHING, store: [:memory_store] }
    second = { requests: CACHING, store: [:keep],
               settings: { escape_html_entities_in_json: false, time_precision: 0 } }
    [first, second].each { |scenario| assert_same_views(scenario) }
  end

  def test_expires_in_reaches_the_store
    gem_result, jetson_result = assert_same_views({ requests: %w[/cases/cache_block /cases/cache_string_key],
                                                    entries: true })
    ttls = jetson_result[:entries].map { |entry| entry[:ttl] }
    assert_equal [60, 600], ttls.compact.sort
    assert_equal ViewsDiff.fragment_names(gem_result[:entries]), ViewsDiff.fragment_names(jetson_result[:entries])
  end

  private

  def redis_url
    url = Kit::RedisServer.url
    skip "redis_cache_store not tested: #{Kit::RedisServer.unavailable}" unless url
    url
  end

  # Jetson's fragments are Strings of JSON (or "" for a block that built
  # nothing); cache_root! keeps the gem's keys and is JSON text too.
  def assert_json_text_entries(entries)
    refute_empty entries
    entries.each do |entry|
      assert_equal "String", entry[:class], entry[:key]
      JSON.parse(entry[:value]) unless entry[:value].empty?
    end
    assert(entries.any? { |entry| entry[:key].match?(NAMESPACED) })
  end

  def redis_values(url)
    require "redis"
    redis = Redis.new(url: url)
    store = ActiveSupport::Cache::RedisCacheStore.new(url: url)
    redis.keys("*").to_h { |key| [key, store.read(key)] }
  ensure
    redis&.close
  end
end
