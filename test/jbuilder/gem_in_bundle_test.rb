# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"

# jetson/jbuilder where the process can also load the jbuilder gem (this
# bundle has it, as an app that mounts an engine depending on it does):
# Jetson's stand-ins answer the gem's files once Jetson is loaded, and where
# the gem came first its classes make way for Jetson's, keeping what was
# added to them, or the require says what to change
# (lib/jetson/builder/jbuilder_gem.rb). Each case runs in a child process:
# a process holds one ::Jbuilder. (Rails apps and an engine:
# test/rails/views/engine_bundles_test.rb.)
class GemInBundleTest < Minitest::Test
  LIB = File.expand_path("../../lib", __dir__)

  def setup
    skip "subprocess tests do not run under valgrind" if ENV["JETSON_MEMCHECK"]
  end

  # Runs `script` in a child Ruby with this bundle; returns its stdout's
  # last line parsed as JSON.
  def child(script)
    out, err, status = Open3.capture3(RbConfig.ruby, "-I", LIB, "-e", "require 'json'\n#{script}")
    assert status.success?, "the child failed:\n#{err}"
    JSON.parse(out.lines.last)
  end

  # Rails, the engine's `require "jbuilder"`, a minimal app booted.
  RAILS_APP = <<~RUBY
    require "rails"
    require "action_controller/railtie"
    require "action_view/railtie"
    require "jbuilder"
    require #{File.expand_path("../support/child_app", __dir__).inspect}
    class App < Rails::Application
      ChildApp.configure(config)
    end
    App.initialize!
  RUBY

  def gem_files_loaded
    %($LOADED_FEATURES.grep(%r{/jbuilder-[^/]+/lib/}))
  end

  def test_jetson_first_answers_every_file_of_the_gem
    result = child(<<~RUBY)
      require "jetson/jbuilder"
      features = %w[jbuilder jbuilder/jbuilder jbuilder/version jbuilder/blank jbuilder/key_formatter
                    jbuilder/errors]
      features.each { |feature| require feature }
      puts JSON.generate("gem_files" => #{gem_files_loaded}, "jbuilder" => Jbuilder.superclass.name,
                         "first" => $LOAD_PATH.first, "json" => Jbuilder.encode { |json| json.a 1 })
    RUBY
    assert_empty result["gem_files"], "the jbuilder gem's own files were loaded"
    assert_equal "Jetson::Builder", result["jbuilder"]
    assert_equal File.expand_path("../../stand_in", __dir__), result["first"]
    assert_equal '{"a":1}', result["json"]
  end

  # Jbuilder::VERSION as the gem defines it (jbuilder/version.rb, which its
  # other files require), read in a child with the gem alone.
  def gem_version
    child(%(require "jbuilder/version"\nputs JSON.generate("version" => Jbuilder::VERSION, "jbuilder" => Jbuilder.superclass.name)))
  end

  # Jbuilder::VERSION under Jetson is the bundle's gem's, whichever of the
  # two loaded first and whichever file named it.
  def test_jbuilder_version_is_the_bundles_gems
    stock = gem_version
    assert_equal "BasicObject", stock["jbuilder"], "the gem's own Jbuilder"
    refute_nil stock["version"]
    scripts = {
      "jetson/jbuilder" => %(require "jetson/jbuilder"),
      "jetson/jbuilder, then jbuilder/version" => %(require "jetson/jbuilder"\nrequire "jbuilder/version"),
      "jetson/jbuilder, then jbuilder" => %(require "jetson/jbuilder"\nrequire "jbuilder"),
      "jbuilder/version, then jetson/jbuilder" => %(require "jbuilder/version"\nrequire "jetson/jbuilder"),
      "jbuilder, then jetson/jbuilder" => %(require "jbuilder"\nrequire "jetson/jbuilder")
    }
    scripts.each do |name, script|
      result = child(<<~RUBY)
        #{script}
        puts JSON.generate("version" => Jbuilder::VERSION, "frozen" => Jbuilder::VERSION.frozen?,
                           "jbuilder" => Jbuilder.superclass.name)
      RUBY
      assert_equal stock["version"], result["version"], name
      assert result["frozen"], name
      assert_equal "Jetson::Builder", result["jbuilder"], name
    end
  end

  # Where no jbuilder gem is in the bundle (nor activated), VERSION is the
  # release Jetson follows: this bundle's gem, which the Jbuilder tests run
  # against.
  def test_jbuilder_version_without_the_gem_is_the_release_jetson_follows
    result = child(<<~RUBY)
      Gem.loaded_specs.delete("jbuilder")
      require "jetson/jbuilder"
      require "jbuilder/version"
      puts JSON.generate("version" => Jbuilder::VERSION, "gem_files" => #{gem_files_loaded})
    RUBY
    assert_empty result["gem_files"]
    assert_equal gem_version["version"], result["version"]
  end

  # The gem first, configured and extended as an engine's lib might before
  # Jetson loads: Jetson's Jbuilder gives the bytes the gem gave, with the
  # key format, ignore_nil and the module.
  def test_the_gem_first_makes_way_and_its_settings_and_modules_carry_over
    result = child(<<~RUBY)
      require "jbuilder"
      require "active_support/core_ext/string/inflections"
      module Money
        def money!(key, cents) = set!(key, cents / 100.0)
      end
      module Shorthand
        def self.extended(base) = base
        def quick(&block) = encode(&block)
      end
      Jbuilder.include(Money)
      Jbuilder.extend(Shorthand)
      Jbuilder.key_format camelize: :lower
      Jbuilder.ignore_nil
      Jbuilder.const_set(:ENGINE_LIMIT, 3)
      doc = proc do |json|
        json.first_name "Ada"
        json.middle_name nil
        json.money! :unit_price, 1250
        json.items [1, 2] do |item|
          json.item_id item
        end
      end
      stock = Jbuilder.quick(&doc)
      stock_class = Jbuilder
      require "jetson/jbuilder"
      puts JSON.generate("stock" => stock, "jetson" => Jbuilder.quick(&doc), "replaced" => !Jbuilder.equal?(stock_class),
                         "jbuilder" => Jbuilder.superclass.name, "limit" => Jbuilder::ENGINE_LIMIT,
                         "again" => require("jbuilder"))
    RUBY
    assert result["replaced"]
    assert_equal "Jetson::Builder", result["jbuilder"]
    assert_equal result["stock"], result["jetson"]
    assert_equal '{"firstName":"Ada","unitPrice":12.5,"items":[{"itemId":1},{"itemId":2}]}', result["stock"]
    assert_equal 3, result["limit"]
    assert_equal false, result["again"]
  end

  def test_a_method_added_to_the_gems_class_before_jetson_is_named
    result = child(<<~RUBY)
      require "jbuilder"
      class Jbuilder
        def shout!(key, text) = set!(key, text.upcase)
      end
      begin
        require "jetson/jbuilder"
        puts JSON.generate("raised" => nil)
      rescue LoadError => e
        puts JSON.generate("raised" => e.message, "jbuilder" => Jbuilder.superclass.name)
      end
    RUBY
    message = result["raised"]
    refute_nil message, "requiring jetson/jbuilder after Jbuilder#shout! was added should raise"
    assert_match(/\Ajetson\/jbuilder cannot take the jbuilder gem's place: -e:\d+ added Jbuilder#shout! /, message)
    assert_match(/load Jetson first \(put `gem "jetson", require: "jetson\/jbuilder"` above the gem/, message)
    assert_equal "BasicObject", result["jbuilder"], "the gem's Jbuilder stays when Jetson cannot take its place"
  end

  def test_a_class_derived_from_the_gems_before_jetson_is_named
    result = child(<<~RUBY)
      require "jbuilder"
      class ReportBuilder < Jbuilder; end
      begin
        require "jetson/jbuilder"
        puts JSON.generate("raised" => nil)
      rescue LoadError => e
        puts JSON.generate("raised" => e.message)
      end
    RUBY
    assert_match(/-e:\d+ derived ReportBuilder from the jbuilder gem's Jbuilder before Jetson was loaded/,
                 result["raised"].to_s)
  end

  # Required before Rails (`rspec -r jetson/jbuilder`, RUBYOPT, a spec
  # helper's first line), then an engine's require "jbuilder" after Rails:
  # the stand-in answers it, and the views' Railtie still comes with the
  # app, as the gem's would have.
  def test_required_before_rails_the_views_come_with_the_app
    result = child(<<~RUBY)
      require "jetson/jbuilder"
      #{RAILS_APP}
      view = ActionView::Base.with_empty_template_cache.with_view_paths([])
      puts JSON.generate("views" => Jetson::Rails.diagnostics[:jbuilder_views], "gem_files" => #{gem_files_loaded},
                         "json" => view.render(inline: "json.a 1", type: :jbuilder))
    RUBY
    assert_equal "Jetson", result["views"]
    assert_empty result["gem_files"]
    assert_equal '{"a":1}', result["json"]
  end

  # Required after the app booted on the gem (its handler registered, a
  # view compiled): Jetson's handler takes the gem's place, and the views
  # render Jetson's JbuilderTemplate with the gem's bytes.
  def test_required_after_the_app_booted_on_the_gem_its_handler_takes_over
    result = child(<<~RUBY)
      #{RAILS_APP}
      source = "json.a 1\njson.when Time.utc(2024, 1, 2, 3, 4, 5)\njson.list [1, nil, 'x']"
      render = -> { ActionView::Base.with_empty_template_cache.with_view_paths([]).render(inline: source, type: :jbuilder) }
      stock = render.()
      require "jetson/jbuilder"
      puts JSON.generate("stock" => stock, "jetson" => render.(), "views" => Jetson::Rails.diagnostics[:jbuilder_views])
    RUBY
    assert_equal "Jetson", result["views"]
    assert_equal result["stock"], result["jetson"]
    assert_includes result["stock"], '"when":"2024-01-02T03:04:05.000Z"'
  end
end
