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
    class App < Rails::Application
      config.eager_load = false
      config.logger = Logger.new(nil)
      config.secret_key_base = "test"
      config.jetson.rails_encoder = ENV["OPT_IN"] == "1"
    end
    puts ActiveSupport.json_encoder
    App.initialize!
    puts ActiveSupport.json_encoder
    doc = { "at" => Time.utc(2024, 5, 6), "html" => "<b>" }
    puts doc.to_json
    puts ActiveSupport::JSON::Encoding::JSONGemEncoder.new.encode(doc)
  RUBY

  def setup
    skip "subprocess tests do not run under valgrind" if ENV["JETSON_MEMCHECK"]
  end

  def boot(opt_in)
    lib = File.expand_path("../../lib", __dir__)
    out, err, status = Open3.capture3({ "OPT_IN" => opt_in ? "1" : "0" }, RbConfig.ruby, "-I", lib, "-e", APP)
    assert status.success?, err
    out.lines.map(&:chomp)
  end

  def test_the_app_opts_in_from_its_configuration
    before, after, json, stock_json = boot(true)
    assert_equal "ActiveSupport::JSON::Encoding::JSONGemEncoder", before
    assert_equal "Jetson::RailsEncoder", after
    assert_equal stock_json, json
  end

  def test_nothing_changes_without_the_setting
    before, after, = boot(false)
    assert_equal "ActiveSupport::JSON::Encoding::JSONGemEncoder", before
    assert_equal "ActiveSupport::JSON::Encoding::JSONGemEncoder", after
  end
end
