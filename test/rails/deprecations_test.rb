# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"
require "json"

# No deprecation warning of Rails' may come from Jetson's code. Rails main
# deprecates APIs Jetson used (ActionController::Renderers::RENDERERS,
# Time::DATE_FORMATS); a minimal app, in a child process, boots with
# Jetson's Railtie (Rails mode, Jbuilder views, render json_stream:) and
# every deprecator collecting what it reports, then goes through Jetson's
# paths that touch Rails' APIs: render json: and json_stream:, to_json of
# records, a record's cache key, Jbuilder, the diagnostics. A deprecation
# whose call stack passes through Jetson's lib/ fails the test. On Rails
# main, the child also reads Time::DATE_FORMATS itself, to show that the
# collector hears what main deprecates.
class DeprecationsTest < Minitest::Test
  APP = <<~'RUBY'
    ENV["DATABASE_URL"] = "sqlite3::memory:" # no config/database.yml
    require "rails"
    require "action_controller/railtie"
    require "active_record/railtie"
    require "jetson/rails"
    require "jetson/jbuilder"

    COLLECTED = []
    COLLECT = ->(message, callstack, *) { COLLECTED << [message, Array(callstack).map(&:to_s)] }
    [ActiveSupport, ActionController, ActionDispatch, ActionView, ActiveRecord, Rails].each do |framework|
      framework.deprecator.behavior = COLLECT if framework.respond_to?(:deprecator)
    end

    require "support/child_app"
    class App < Rails::Application
      config.load_defaults "#{Rails::VERSION::MAJOR}.#{Rails::VERSION::MINOR}"
      ChildApp.configure(config)
      config.hosts.clear
      config.active_support.deprecation = COLLECT
      config.active_support.disallowed_deprecation = COLLECT
      config.jetson.rails_encoder = true
      config.action_dispatch.show_exceptions = :none
    end
    App.initialize!
    App.routes.draw do
      get "/json" => "posts#json"
      get "/stream" => "posts#stream"
    end

    ActiveRecord::Schema.verbose = false
    ActiveRecord::Schema.define do
      create_table(:posts) { |t| t.string :title; t.timestamps }
    end
    class Post < ActiveRecord::Base; end
    3.times { |i| Post.create!(title: "post <#{i}>") }

    class PostsController < ActionController::Base
      def json = render(json: Post.order(:id))
      def stream = render(json_stream: Post.order(:id), batch_size: 2)
    end

    def get(path)
      status, _headers, body = App.call(Rack::MockRequest.env_for(path))
      text = +""
      body.each { text << _1 }
      body.close if body.respond_to?(:close)
      [status, text]
    end

    posts = Post.order(:id).to_a
    report = {
      "json" => get("/json"),
      "stream" => get("/stream"),
      "to_json" => posts.to_json,
      "stock_json" => ActiveSupport::JSON::Encoding.json_encoder.equal?(Jetson::RailsEncoder) &&
                      Jetson::Rails.reference_encoder.new.encode(posts),
      # render json: passes escape: false where escape_json_responses is off (8.1's defaults).
      "stock_render" => Jetson::Rails.reference_encoder.new(
        ActionController::Base.try(:escape_json_responses?) == false ? { escape: false } : nil
      ).encode(posts),
      "cache_key" => Jetson::Rails::RecordCacheKeys.new.for(posts.first),
      "ar_cache_key" => [posts.first.cache_key, posts.first.cache_version],
      "jbuilder" => Jbuilder.encode { |json| json.array!(posts, :id, :title, :updated_at) },
      "jbuilder_views" => Jetson::Rails.diagnostics[:jbuilder_views],
      "streaming_installed" => Jetson::Streaming.install.nil? || true
    }
    lib = File.expand_path("jetson", $LOAD_PATH.find { File.exist?(File.join(_1, "jetson.rb")) })
    report["jetson"] = COLLECTED.select { |_, stack| stack.any? { _1.start_with?(lib) } }
    report["before_probe"] = COLLECTED.size
    # What Rails main deprecates, read here: the collector must hear it.
    Time::DATE_FORMATS[:db] if defined?(ActiveSupport::TimeFormats)
    report["after_probe"] = COLLECTED.size
    report["main"] = defined?(ActiveSupport::TimeFormats) ? true : false
    puts JSON.generate(report)
  RUBY

  def test_jetsons_paths_report_no_deprecation
    skip "subprocess tests do not run under valgrind" if ENV["JETSON_MEMCHECK"]

    lib = File.expand_path("../../lib", __dir__)
    test_dir = File.expand_path("..", __dir__)
    out, err, status = Open3.capture3(RbConfig.ruby, "-I", lib, "-I", test_dir, "-e", APP)
    assert status.success?, err
    report = JSON.parse(out.lines.last)
    assert_empty report["jetson"], "deprecations reported from Jetson's code"
    assert_operator report["after_probe"], :>, report["before_probe"], "the collector heard nothing" if report["main"]
    # The paths ran, with Rails' bytes.
    assert_equal 200, report["json"][0]
    assert_equal report["stock_render"], report["json"][1]
    assert_equal [200, report["json"][1]], report["stream"]
    assert_equal report["stock_json"], report["to_json"]
    assert_equal report["ar_cache_key"], report["cache_key"]
    assert_equal "Jetson", report["jbuilder_views"]
  end
end
