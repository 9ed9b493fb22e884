# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "tmpdir"
require_relative "../../kit/puma_server"
require_relative "../../kit/traffic"

# Jetson as apps deploy it: the kit's generated scaffold app (kit/blog.rb)
# under puma with its own config/puma.rb, production, Rails' default
# threads, booted again and again, each boot's first requests arriving
# together as a load balancer sends them after a deploy. On every boot:
# - every response has the bytes the jbuilder gem and ActiveSupport's
#   encoder give the same app (the jbuilder world, booted once);
# - once those first requests are served, nothing stays on a slow path:
#   Jetson::Rails.diagnostics of each worker shows no record, value,
#   partial or encode going through Ruby for the requests after them, and
#   the native side asks Ruby nothing more about classes.
# The same in cluster mode (workers forked after boot with preload_app!),
# and in development with code reloading.
#
# Before the fix this guards, 16 boots of 18 of such an app left every
# record on Ruby's path for the life of the process (two threads built a
# model's attribute types at once; test/records/concurrent_plans_test.rb
# has that case in one process).
class DeployBootsTest < Minitest::Test
  BOOTS = Integer(ENV.fetch("JETSON_DEPLOY_BOOTS", "6"))
  CLUSTER_BOOTS = Integer(ENV.fetch("JETSON_DEPLOY_CLUSTER_BOOTS", "3"))
  WORKERS = 2
  PATHS = Kit::Blog::ENDPOINTS.values.freeze
  KINDS = %i[records values partials calls].freeze

  def self.reference
    @reference ||= begin
      server = Kit::PumaServer.start(world: "jbuilder")
      PATHS.to_h { |path| [path, server.get(path).body.b] }
    ensure
      server&.stop
    end
  end

  def setup
    skip "the kit's app needs railties and puma" unless kit_gems?
    @log = File.join(Dir.tmpdir, "jetson-deploy-#{Process.pid}.log")
  end

  def kit_gems?
    gem?("railties") && gem?("puma")
  end

  # A model's first schema read waits for a second thread's (kit/blog.rb,
  # KIT_SCHEMA_RACE, at most this many seconds), so that the first requests
  # interleave in ActiveRecord's lazy type building as they do in most
  # production boots; at least one boot must show the state that leaves
  # (Post's records carrying types Post does not keep), or the test did not
  # test it.
  SCHEMA_RACE = "2"
  RACE_BOOTS = 8

  def test_every_boot_takes_the_native_paths_in_single_mode
    # BOOTS boots, and more (up to RACE_BOOTS) until one has raced: on
    # Rails 8.1 every boot raced here, on 8.0 three boots of four. On 7.2
    # the kit's rendezvous gave the race in one boot of six: there the
    # count is printed, not asserted (every boot's native paths still are).
    asserted = Gem::Specification.find_by_name("railties").version >= Gem::Version.new("8.0")
    shared = []
    shared << check_boot(shared.size, workers: 0) while shared.size < BOOTS ||
                                                         (asserted && shared.flatten.all? && shared.size < RACE_BOOTS)
    puts "\ndeploy: #{shared.count { _1.include?(false) }} of #{shared.size} single-mode boots raced on Post's attribute types"
    return unless asserted

    assert_includes shared.flatten, false, "no boot raced on Post's attribute types"
  end

  # Each worker takes new connections only while it has a free thread (puma
  # waits a little on a busy one), so a worker's first requests overlap
  # less than a single process's, and may not race at all.
  def test_every_boot_takes_the_native_paths_in_cluster_mode
    CLUSTER_BOOTS.times { |boot| check_boot(boot, workers: WORKERS) }
  end

  # Development: the code reloaded between bursts (a model edited), each
  # burst concurrent. Rails' log subscriber listens to ActionView's render
  # events at debug level; the partials emit them and stay native, as do
  # records, values and encodes.
  def test_development_with_code_reloading
    Dir.mktmpdir("jetson-deploy-dev") do |copy|
      FileUtils.cp_r("#{Kit::Blog.dir}/.", copy)
      env = { "DATABASE_URL" => "sqlite3:#{File.join(copy, 'storage/production.sqlite3')}",
              "RAILS_DEVELOPMENT_HOSTS" => "kit.example" }
      server = Kit::PumaServer.start(world: "jetson", rails_env: "development", dir: copy, log_path: @log, env: env)
      begin
        first = Kit::Traffic.burst(server, PATHS)
        assert_responses(first, "development, first requests")
        loaded = server.diagnostics_by_pid.values.first[:post_class]
        model = File.join(copy, "app/models/post.rb")
        sleep 1.1 # a later mtime than the checker has seen (it ignores mtimes in the future)
        File.write(model, "#{File.read(model)}# edited\n")
        reloaded = Kit::Traffic.burst(server, PATHS)
        assert_responses(reloaded, "development, after the reload")
        before = server.diagnostics_by_pid
        refute_equal loaded, before.values.first[:post_class], "the edit reloaded Post"
        Kit::Traffic.burst(server, PATHS, rounds: 2)
        after = server.diagnostics_by_pid
        after.each do |pid, now|
          delta = delta(before.fetch(pid), now)
          KINDS.each do |kind|
            assert_equal 0, delta[kind][:ruby], "development: #{kind} through Ruby after the reload: #{now[:fallbacks]}"
            assert_operator delta[kind][:native], :>, 0, "development: #{kind} written natively"
          end
        end
      ensure
        server.stop
      end
    end
  end

  # With an APM agent: New Relic's (offline), which subscribes to every
  # render event of ActionView, !render_template included, and
  # OpenTelemetry's ActionView instrumentation (spans in memory), which
  # subscribes to render_template, render_partial and render_collection. The
  # same bytes, the same metrics or spans as the jbuilder gem's app records
  # for the same requests, and every partial still native once warm (the
  # native runs emit the events).
  AGENTS = { "newrelic" => "newrelic_rpm", "opentelemetry" => "opentelemetry-instrumentation-action_view" }.freeze

  AGENTS.each do |agent, gem_name|
    define_method("test_#{agent}_records_the_gems_views_and_partials_stay_native") do
      skip "#{gem_name} is not in the bundle" unless gem?(gem_name)

      metrics = %w[jbuilder jetson].to_h { |world| [world, apm_metrics(world, agent)] }
      assert_operator metrics["jbuilder"].size, :>, 5, "#{agent} recorded the views: #{metrics['jbuilder']}"
      assert_equal metrics["jbuilder"], metrics["jetson"], "#{agent}'s view metrics (name => count)"
    end
  end

  private

  def apm_metrics(world, agent)
    server = Kit::PumaServer.start(world: world, log_path: @log, env: Kit::Blog.apm_env(agent))
    # One request per path first, one at a time: concurrent first requests
    # may each miss a cached collection and render its partials (as both
    # gems do), which would make the counts of the two servers differ by
    # chance. The boots' races are check_boot's.
    assert_responses(PATHS.map { |path| [path, *Kit::Traffic.response(server, path)] }, "#{world} with #{agent}, first requests")
    assert_responses(Kit::Traffic.burst(server, PATHS), "#{world} with #{agent}, concurrent requests")
    assert_responses(Kit::Traffic.burst(server, PATHS), "#{world} with #{agent}, warm requests")
    if world == "jetson"
      before = server.diagnostics_by_pid.values.first
      Kit::Traffic.burst(server, PATHS)
      after = server.diagnostics_by_pid.values.first
      delta = delta(before, after)
      KINDS.each do |kind|
        assert_equal 0, delta[kind][:ruby], "with #{agent}: #{kind} through Ruby once warm: #{after[:fallbacks]}"
      end
      assert_operator delta[:partials][:native], :>, 0
    else
      Kit::Traffic.burst(server, PATHS)
    end
    JSON.parse(server.get("/kit/apm.json").body)["metrics"]
  ensure
    server&.stop
  end


  def gem?(name)
    Gem::Specification.find_by_name(name)
  rescue Gem::MissingSpecError
    false
  end

  def check_boot(boot, workers:)
    label = "#{workers.zero? ? 'single mode' : "cluster mode (#{workers} workers)"}, boot #{boot + 1}"
    server = Kit::PumaServer.start(world: "jetson", workers: workers, log_path: @log,
                                   env: { "KIT_SCHEMA_RACE" => SCHEMA_RACE })
    begin
      # The first requests, all at once; in cluster mode enough of them
      # that every worker serves some (and warms its cache).
      first = Kit::Traffic.burst(server, PATHS, clients: 4 * [workers, 2].max, rounds: workers.zero? ? 1 : 3)
      assert_responses(first, "#{label}, first requests")
      # Then what every request after them takes (a cached collection's
      # hits, not its first misses; the diagnostics endpoint's own JSON),
      # once, before counting.
      server.diagnostics_by_pid
      assert_responses(Kit::Traffic.burst(server, PATHS), "#{label}, warm requests")
      before = server.diagnostics_by_pid
      Kit::Traffic.burst(server, PATHS, rounds: 2)
      after = server.diagnostics_by_pid
      assert_equal [workers, 1].max, after.size, "#{label}: every worker answered"
      native = Hash.new(0)
      after.each do |pid, now|
        delta = delta(before.fetch(pid), now)
        KINDS.each do |kind|
          assert_equal 0, delta[kind][:ruby],
                       "#{label}, worker #{pid}: #{kind} through Ruby once warm: #{now[:fallbacks].inspect}"
          native[kind] += delta[kind][:native]
        end
        assert_equal before.fetch(pid)[:memo_asks], now[:memo_asks],
                     "#{label}, worker #{pid}: the native side still asks Ruby about classes once warm"
        assert_equal "Jetson::RailsEncoder", now[:encoder]
      end
      KINDS.each { |kind| assert_operator native[kind], :>, 0, "#{label}: #{kind} written natively" }
      after.values.map { _1[:post_types_shared] }
    ensure
      server.stop
    end
  end

  def assert_responses(responses, label)
    reference = self.class.reference
    responses.each do |path, status, body|
      assert_equal 200, status, "#{label}: #{path}"
      assert reference.fetch(path) == body, "#{label}: #{path} differs from the jbuilder gem's and ActiveSupport's bytes"
    end
  end

  def delta(before, after)
    KINDS.to_h do |kind|
      [kind, { native: after[kind][:native] - before[kind][:native], ruby: after[kind][:ruby] - before[kind][:ruby] }]
    end
  end
end
