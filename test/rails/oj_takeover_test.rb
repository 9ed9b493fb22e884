# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"

# An app that calls Oj.optimize_rails in its initializers and uses Jetson
# (lib/jetson/rails/oj_takeover.rb): booted in a child process, as a process
# holds one Rails.application.
class OjTakeoverTest < Minitest::Test
  APP = <<~RUBY
    require "rails"
    require "action_controller/railtie"
    require "oj"
    require ENV.fetch("ENTRY")
    require "support/child_app"
    class App < Rails::Application
      ChildApp.configure(config)
      config.jetson.rails_encoder = ENV["OPT_IN"] == "1"
      config.jetson.oj = ENV["OJ"].to_sym if ENV["OJ"]
      config.load_defaults ENV["DEFAULTS"] if ENV["DEFAULTS"]
      # Where apps call it: config/initializers, after the gems' initializers.
      initializer("app.oj") { Oj.optimize_rails }
    end
    App.initialize!
    puts ActiveSupport.json_encoder
    doc = { "f" => 0.1 + 0.2, "small" => 1.0e-7, "at" => Time.utc(2024, 5, 6, 7, 8, 9, 123456), "s" => "<b>\\u2028" }
    puts doc.to_json
    ActiveSupport.json_encoder = Oj::Rails::Encoder
    puts doc.to_json
  RUBY

  # ActiveSupport's own bytes for the document, from a process without Oj.
  STOCK = <<~RUBY
    require "active_support"
    require "active_support/json"
    require "active_support/core_ext"
    puts({ "f" => 0.1 + 0.2, "small" => 1.0e-7, "at" => Time.utc(2024, 5, 6, 7, 8, 9, 123456), "s" => "<b>\\u2028" }.to_json)
  RUBY

  def setup
    skip "subprocess tests do not run under valgrind" if ENV["JETSON_MEMCHECK"]
    skip "oj is not installed" unless Gem.loaded_specs["oj"]
  end

  def run_child(script, env = {})
    lib = File.expand_path("../../lib", __dir__)
    test_dir = File.expand_path("..", __dir__)
    out, err, status = Open3.capture3(env, RbConfig.ruby, "-I", lib, "-I", test_dir, "-e", script)
    assert status.success?, err
    [out.lines.map(&:chomp), err]
  end

  def boot(entry:, opt_in: false, oj: nil, defaults: nil)
    env = { "ENTRY" => entry, "OPT_IN" => opt_in ? "1" : "0" }
    env["OJ"] = oj.to_s if oj
    env["DEFAULTS"] = defaults if defaults
    run_child(APP, env)
  end

  def stock_json = run_child(STOCK).first.first

  # The default (config.jetson.oj = :native): Jetson::OjEncoder in Oj's
  # encoder's place, Oj's bytes (those of Oj::Rails::Encoder, set back at
  # the end of the child), no notice.
  def test_jetson_jbuilder_writes_ojs_bytes_in_ojs_place
    (encoder, json, oj_json), err = boot(entry: "jetson/jbuilder")
    assert_equal "Jetson::OjEncoder", encoder
    assert_equal oj_json, json
    refute_equal stock_json, json, "the document has values Oj writes otherwise"
    refute_includes err, "Jetson: Oj.optimize_rails"
  end

  def test_the_rails_encoder_setting_writes_ojs_bytes_after_oj
    (encoder, json, oj_json), = boot(entry: "jetson/rails", opt_in: true)
    assert_equal "Jetson::OjEncoder", encoder
    assert_equal oj_json, json
  end

  def test_jetson_jbuilder_takes_over_from_oj_with_a_notice
    (encoder, json, oj_json), err = boot(entry: "jetson/jbuilder", oj: :replace)
    assert_equal "Jetson::RailsEncoder", encoder
    assert_equal stock_json, json
    refute_equal oj_json, json, "the document has values Oj writes otherwise"
    assert_includes err, "Jetson: Oj.optimize_rails had made Oj ActiveSupport's JSON encoder"
    # The notice shows what this app's Oj and Jetson wrote at boot.
    assert_includes err, "a Float with 17 significant digits: Oj wrote [0.3], now [0.30000000000000004]"
    assert_includes err, "config.jetson.oj = :keep"
  end

  # Rails 8.1's defaults turn escape_json_responses off: render json: then
  # passes escape: false, which Oj ignores. The notice says so, with the
  # bytes each wrote at boot.
  def test_the_notice_names_render_json_where_escape_json_responses_is_off
    skip "escape_json_responses is ActionPack 8.1's" unless Gem::Version.new(Gem.loaded_specs["actionpack"].version) >= Gem::Version.new("8.1")
    _, err = boot(entry: "jetson/jbuilder", defaults: "8.1", oj: :replace)
    assert_includes err, '<, > and & in render json: (escape_json_responses off): Oj wrote ["\\u003cb\\u003e\\u0026\\u003c/b\\u003e"], now ["<b>&</b>"]'
    _, err = boot(entry: "jetson/jbuilder", oj: :replace)
    refute_includes err, "render json:", "escape_json_responses is on without 8.1's defaults"
  end

  def test_the_rails_encoder_setting_takes_over_from_oj
    (encoder, json), err = boot(entry: "jetson/rails", opt_in: true, oj: :replace)
    assert_equal "Jetson::RailsEncoder", encoder
    assert_equal stock_json, json
    assert_includes err, "Jetson::RailsEncoder replaces it"
  end

  def test_keep_leaves_oj_in_place
    (encoder, json, oj_json), err = boot(entry: "jetson/jbuilder", oj: :keep)
    assert_equal "Oj::Rails::Encoder", encoder
    assert_equal oj_json, json
    refute_includes err, "Jetson: Oj.optimize_rails"
  end

  def test_jetson_rails_without_the_setting_changes_nothing
    (encoder,), err = boot(entry: "jetson/rails")
    assert_equal "Oj::Rails::Encoder", encoder
    refute_includes err, "Jetson: Oj.optimize_rails"
  end
end
