# frozen_string_literal: true

require "test_helper"
require_relative "../../../kit/engine_app"

# Jetson in the bundles apps have (issue 52): the kit's host app mounts an
# engine whose gemspec depends on the jbuilder gem and whose lib requires it
# and extends JbuilderTemplate (kit/widget_engine/), so the gem is in the
# bundle whatever the app does. Booted (in production, child processes, a
# bundle of its own per Gemfile, kit/engine_app.rb) with Jetson above the
# engine in the Gemfile and below it, with Bundler.require and with plain
# requires in both orders, every view, partial, cached collection and
# Jbuilder call outside views must answer with the bytes of the same app on
# the jbuilder gem alone, and every .json.jbuilder view must render through
# Jetson (its diagnostics).
class EngineBundlesTest < Minitest::Test
  Variant = Kit::EngineApp::Variant
  JETSON_VARIANTS = [
    Variant.new(:jetson_first, nil),
    Variant.new(:engine_first, nil),
    Variant.new(:engine_first, %w[jetson/jbuilder widget_engine]),
    Variant.new(:engine_first, %w[widget_engine jetson/jbuilder])
  ].freeze

  class << self
    # The app on the jbuilder gem alone, and in each variant: booted once
    # for the whole class.
    def reports
      @reports ||= begin
        tmp = Dir.mktmpdir("jetson-engine-app")
        Minitest.after_run { FileUtils.remove_entry(tmp) }
        variants = [Variant.new(:gem_only, nil), *JETSON_VARIANTS, Variant.new(:rails_mode_only, nil)]
        variants.to_h { |variant| [variant, Kit::EngineApp.render(variant, tmp)] }
      end
    end
  end

  def setup
    skip "subprocess tests do not run under valgrind" if ENV["JETSON_MEMCHECK"]
    # What this checks is Ruby's: which files load and which classes stand;
    # the C its views run is the views tests' (which the sanitizer run has).
    skip "the bundles' load order is checked by the ordinary run, not under ASan" if ENV["ASAN_OPTIONS"]
  end

  def reports = self.class.reports
  def stock = reports.fetch(Variant.new(:gem_only, nil))

  def test_the_stock_app_renders_every_path_through_the_gem
    assert_equal "JbuilderHandler", stock["handler"]
    assert_equal %w[Jbuilder BasicObject], stock["jbuilder"]
    assert stock["template_has_helpers"]
    assert_equal 12, stock["responses"].size
    stock["responses"].each { |response| assert_equal 200, response["status"], response["path"] }
  end

  JETSON_VARIANTS.each do |variant|
    name = "#{variant.gemfile}_#{variant.requires ? variant.requires.join('_then_').tr('/', '_') : 'bundler_require'}"

    define_method(:"test_#{name}_renders_the_gems_bytes_through_jetson") do
      report = reports.fetch(variant)
      assert_equal %w[Jbuilder Jetson::Builder], report["jbuilder"], "::Jbuilder in #{variant}"
      assert_equal "Jetson", report["jbuilder_views"], "the views' renderer in #{variant}"
      assert report["template_has_helpers"], "the engine's module on JbuilderTemplate in #{variant}"
      assert_operator report.dig("partials", "native"), :>=, 9, "partials run natively in #{variant}"
      assert_equal stock["responses"].size, report["responses"].size
      stock["responses"].zip(report["responses"]).each do |expected, actual|
        assert_equal expected, actual, "#{actual['path']} (round #{actual['round']}) in #{variant}"
      end
    end
  end

  # Jetson in the bundle for Rails mode only (`require: "jetson/rails"`):
  # the views stay the gem's, and the diagnostics and the boot log say so.
  def test_an_app_not_on_jetson_views_is_told_so
    report = reports.fetch(Variant.new(:rails_mode_only, nil))
    assert_equal "the jbuilder gem", report["jbuilder_views"]
    assert_equal %w[Jbuilder BasicObject], report["jbuilder"]
    assert_match(/Jetson: \.json\.jbuilder views render through the jbuilder gem; /, report["log"])
    assert_equal stock["responses"], report["responses"]
  end

  def test_the_boot_log_names_jetson
    assert_includes reports.fetch(Variant.new(:engine_first, nil))["log"],
                    "Jetson: .json.jbuilder views render through Jetson"
  end
end
