# frozen_string_literal: true

require "test_helper"
require "support/subprocess"
require "open3"
require "tmpdir"
require "fileutils"

# The entry points that build on other gems, required where those gems are
# missing: the error is a LoadError that names the gem to add to the Gemfile.
# Each case is a child Ruby. Without ActiveSupport: no Bundler, and RubyGems
# sees one empty gem directory (the default gems, json among them, are still
# there), as in a project that never installed it. Without ActionView: the
# bundle, with actionview's directories taken off the load path before Rails
# loads.
class EntryPointsTest < Minitest::Test
  include JetsonSubprocess

  # What the child prints about the require: the error's class, whether it
  # is a LoadError, its gem_name and path, then its message.
  REPORT = <<~RUBY
    begin
      require ARGV.fetch(0)
      puts "loaded"
    rescue LoadError => e
      puts e.class, e.is_a?(LoadError), (e.gem_name if e.respond_to?(:gem_name)).inspect, e.path.inspect
      puts e.message
    end
  RUBY

  def setup
    skip_subprocess_under_valgrind
  end

  # Runs script in a Ruby without Bundler whose only gem directory is empty.
  def without_gems(script, *args)
    Dir.mktmpdir("jetson-no-gems") do |home|
      env = CLEAN_ENV.merge("GEM_HOME" => home, "GEM_PATH" => home, "BUNDLE_GEMFILE" => nil,
                            "BUNDLE_BIN_PATH" => nil, "BUNDLER_SETUP" => nil)
      out, err, status = Open3.capture3(env, RbConfig.ruby, "-I", LIB, "-e", script, *args)
      assert status.success?, "child failed: #{err}"
      out
    end
  end

  def test_the_child_really_has_no_activesupport
    out = without_gems(<<~RUBY)
      puts Gem::Specification.find_all_by_name("activesupport").size
      puts $LOADED_FEATURES.grep(/bundler/).size
    RUBY
    assert_equal %w[0 0], out.lines.map(&:chomp)
  end

  # A checkout used before `rake compile` (`gem "jetson", path: ...`, which
  # Bundler does not compile): the LoadError says what to run, and where.
  def test_an_uncompiled_checkout_says_to_compile
    Dir.mktmpdir("jetson-uncompiled") do |checkout|
      FileUtils.cp_r(File.join(LIB, "."), File.join(checkout, "lib"))
      Dir.glob(File.join(checkout, "lib/jetson/{[0-9]*,jetson.so,jetson.bundle}")).each { FileUtils.rm_rf(_1) }
      out, err, status = Open3.capture3(CLEAN_ENV.merge("JETSON_EXTENSION" => nil), RbConfig.ruby,
                                        "-I", File.join(checkout, "lib"), "-e", REPORT, "jetson")
      assert status.success?, err
      klass, load_error, _gem, _path, message = out.lines.map(&:chomp)
      assert_equal %w[Jetson::ExtensionMissingError true], [klass, load_error]
      assert_equal "Jetson's C extension is not compiled for Ruby #{RUBY_VERSION} in #{File.realpath(checkout)}: " \
                   "run `bundle exec rake compile` in #{File.realpath(checkout)} (once per Ruby). Bundler does not " \
                   "compile a gem used from a path (`gem \"jetson\", path: ...`); an installed gem compiles it " \
                   "when it is installed.", message
    end
  end

  def test_jetson_alone_needs_nothing
    out = without_gems(<<~RUBY)
      require "jetson"
      puts Jetson.generate({ "a" => [1, 2.5, nil, :b] })
    RUBY
    assert_equal %({"a":[1,2.5,null,"b"]}\n), out
  end

  %w[jetson/rails jetson/builder jetson/jbuilder].each do |entry_point|
    define_method("test_#{entry_point.tr("/", "_")}_without_activesupport_names_the_gem") do
      klass, load_error, gem_name, path, message = without_gems(REPORT, entry_point).lines.map(&:chomp)
      assert_equal "Jetson::MissingDependencyError", klass
      assert_equal "true", load_error
      assert_equal '"activesupport"', gem_name
      assert_equal '"active_support"', path
      assert_includes message, "#{entry_point} needs the activesupport gem"
      assert_includes message, 'Add `gem "activesupport"` to the Gemfile'
    end
  end

  # Jetson::Builder exists once "jetson" is required (the extension defines
  # its native half); used before "jetson/builder" it loads its Ruby half
  # through that entry point, so without ActiveSupport each use raises the
  # entry point's error.
  BUILDER_USES = {
    "new" => "Jetson::Builder.new { |json| json.x 1 }.target!",
    "encode" => "Jetson::Builder.encode { |json| json.x 1 }",
    "a constant" => "Jetson::Builder::KeyFormatter",
    "a subclass" => "Class.new(Jetson::Builder) { ignore_nil }.new { |json| json.x nil }.target!"
  }.freeze

  BUILDER_USES.each do |use, code|
    define_method("test_jetson_builder_#{use.tr(" ", "_")}_without_activesupport_names_the_gem") do
      klass, load_error, gem_name, path, message = without_gems(<<~RUBY).lines.map(&:chomp)
        require "jetson"
        begin
          #{code}
          puts "used"
        rescue LoadError => e
          puts e.class, e.is_a?(LoadError), e.gem_name.inspect, e.path.inspect, e.message
        end
      RUBY
      assert_equal "Jetson::MissingDependencyError", klass
      assert_equal "true", load_error
      assert_equal '"activesupport"', gem_name
      assert_equal '"active_support"', path
      assert_includes message, "jetson/builder needs the activesupport gem"
    end
  end

  # With ActiveSupport there, each use after `require "jetson"` alone gives
  # what it gives after `require "jetson/builder"`, also where two threads
  # make the first use at once.
  def test_jetson_builder_after_require_jetson_alone_loads_its_ruby_half
    skip_subprocess_under_valgrind
    uses = BUILDER_USES.values.map { |code| "p(#{code})" }.join("\n")
    threads = "puts Array.new(2) { Thread.new { Jetson::Builder.encode { |json| json.set! :k, [1, nil] } } }.map(&:value)"
    outputs = %w[jetson jetson/builder].to_h do |entry_point|
      results = [uses, threads].map do |script|
        out, err, status = Open3.capture3(RbConfig.ruby, "-rbundler/setup", "-I", LIB, "-e",
                                          "require #{entry_point.dump}\n#{script}")
        assert status.success?, "child failed: #{err}"
        out
      end
      [entry_point, results]
    end
    assert_equal outputs["jetson/builder"], outputs["jetson"]
    assert_equal 4, outputs["jetson"].first.lines.size
    assert_equal 1, outputs["jetson"].last.lines.uniq.size
  end

  def test_jetson_jbuilder_in_a_rails_app_without_actionview_names_the_gem
    # A bundle without a Rails app stack (ActiveSupport and jbuilder only).
    skip "railties is not in this bundle" unless Gem.loaded_specs["railties"]
    script = <<~RUBY
      $LOAD_PATH.reject! { |path| path.include?("/actionview-") }
      require "rails"
      abort "ActionView is loaded" if defined?(ActionView)
      #{REPORT}
    RUBY
    out, err, status = Open3.capture3(RbConfig.ruby, "-rbundler/setup", "-I", LIB, "-e", script, "jetson/jbuilder")
    assert status.success?, "child failed: #{err}"
    klass, load_error, gem_name, path, message = out.lines.map(&:chomp)
    assert_equal "Jetson::MissingDependencyError", klass
    assert_equal "true", load_error
    assert_equal '"actionview"', gem_name
    assert_equal '"action_view"', path
    assert_includes message, "jetson/jbuilder needs the actionview gem"
    assert_includes message, 'Add `gem "actionview"` to the Gemfile'
  end

  # A LoadError from inside a gem that is there (a file it requires is
  # missing) is not turned into "add the gem": it is raised as it is.
  def test_other_load_errors_are_left_alone
    out = ruby_output(<<~RUBY)
      require "jetson/dependencies"
      module Kernel
        alias_method :original_require, :require
        def require(feature)
          raise LoadError, "cannot load such file -- concurrent" if feature == "active_support"

          original_require(feature)
        end
      end
      begin
        Jetson::Dependencies.load_gem("active_support", "jetson/rails", "test")
      rescue LoadError => e
        puts e.class, e.message
      end
    RUBY
    assert_equal "LoadError\ncannot load such file -- concurrent\n", out
  end
end
