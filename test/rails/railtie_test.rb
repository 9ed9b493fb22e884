# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"

# The Railtie boots inside a real (minimal) Rails application, in a child
# process since a process holds one Rails.application.
class RailtieTest < Minitest::Test
  APP = <<~RUBY
    require "rails"
    require "jetson/rails"
    require "support/rails_oracle"
    require "support/child_app"
    class App < Rails::Application
      ChildApp.configure(config)
      config.active_support.deprecation = :silence
      config.jetson.rails_encoder = ENV["OPT_IN"] == "1"
    end
    puts ActiveSupport.json_encoder
    App.initialize!
    puts ActiveSupport.json_encoder
    doc = { "at" => Time.utc(2024, 5, 6), "html" => "<b>" }
    # (ActiveSupport 8.0's own encoder raises under json 3: see RailsOracle.)
    puts(begin
      doc.to_json
    rescue ArgumentError => e
      "to_json raised \#{e.message}"
    end)
    puts RailsOracle.stock(Jetson::Rails.reference_encoder).new.encode(doc)
  RUBY

  def setup
    skip "subprocess tests do not run under valgrind" if ENV["JETSON_MEMCHECK"]
  end

  def boot(opt_in)
    lib = File.expand_path("../../lib", __dir__)
    test_dir = File.expand_path("..", __dir__)
    out, err, status = Open3.capture3({ "OPT_IN" => opt_in ? "1" : "0" }, RbConfig.ruby, "-I", lib, "-I", test_dir, "-e", APP)
    assert status.success?, err
    out.lines.map(&:chomp)
  end

  # The encoder ActiveSupport picks when it loads (JSONGemCoderEncoder on 8.1
  # with a json gem that has JSON::Coder), as this process's ActiveSupport
  # picked it.
  def default_encoder
    require "jetson/rails"
    Jetson::Rails::EncodingRules.default_encoder.name
  end

  def test_the_app_opts_in_from_its_configuration
    before, after, json, stock_json = boot(true)
    assert_equal default_encoder, before
    assert_equal "Jetson::RailsEncoder", after
    assert_equal stock_json, json
  end

  def test_nothing_changes_without_the_setting
    before, after, = boot(false)
    assert_equal default_encoder, before
    assert_equal default_encoder, after
  end
end
