# frozen_string_literal: true

require "bundler"
require "fileutils"
require "json"
require "open3"
require "rbconfig"
require "tmpdir"

module Kit
  # The host app of kit/engine_app/ mounting the engine of
  # kit/widget_engine/ (a gem whose gemspec depends on the jbuilder gem and
  # whose lib requires it), booted in a bundle of its own the way apps bundle
  # it: each Gemfile order, with Bundler.require or with plain requires in
  # either order. Every gem's version is the running bundle's (its lock is
  # the new bundle's starting point, resolved with --local: nothing is
  # downloaded).
  module EngineApp
    ROOT = File.expand_path("..", __dir__)
    APP = File.join(__dir__, "engine_app")
    ENGINE = File.join(__dir__, "widget_engine")
    # What the Gemfile lists, besides Rails' frameworks: the engine, and
    # Jetson as the README says to add it.
    ENGINE_LINE = %(gem "widget_engine", path: #{ENGINE.dump})
    JETSON_LINE = %(gem "jetson", path: #{ROOT.dump}, require: "jetson/jbuilder")
    # gemfile: the lines in order (:jetson_first, :engine_first, :gem_only);
    # requires: nil for Bundler.require, or the features required in order.
    Variant = Struct.new(:gemfile, :requires) do
      def to_s
        "#{gemfile}, #{requires ? "requires #{requires.join(' then ')}" : 'Bundler.require'}"
      end
    end

    GEMFILES = {
      jetson_first: [JETSON_LINE, ENGINE_LINE],
      engine_first: [ENGINE_LINE, JETSON_LINE],
      gem_only: [ENGINE_LINE],
      # Jetson for Rails mode only: the views stay the gem's.
      rails_mode_only: [ENGINE_LINE, %(gem "jetson", path: #{ROOT.dump}, require: "jetson/rails")]
    }.freeze

    module_function

    # Boots the app in `variant` in a child process and returns its report
    # (see engine_app/render.rb): the :jbuilder handler, ::Jbuilder's
    # ancestry, each response, with Jetson its diagnostics, and "log", what
    # the app logged.
    def render(variant, tmp)
      dir = File.join(tmp, variant.gemfile.to_s)
      gemfile = bundle(dir, GEMFILES.fetch(variant.gemfile))
      app = File.join(dir, "app")
      unless File.directory?(app)
        FileUtils.cp_r(APP, app)
        FileUtils.mkdir_p(File.join(app, "tmp"))
      end
      log = File.join(dir, "#{variant.requires ? variant.requires.join('-').tr('/', '_') : 'bundler'}.log")
      env = { "BUNDLE_GEMFILE" => gemfile, "RAILS_ENV" => "production", "KIT_LOG" => log,
              "KIT_BUNDLER_REQUIRE" => variant.requires ? "0" : "1",
              "KIT_REQUIRES" => (variant.requires || []).join(",") }
      out, err, status = run(env, RbConfig.ruby, File.join(app, "render.rb"), chdir: app)
      raise "the engine app did not boot (#{variant}):\n#{err}" unless status.success?

      JSON.parse(out.lines.last).merge("log" => File.read(log))
    end

    # A Gemfile with `lines` below Rails' frameworks at the running
    # bundle's versions, and its lock (dir/Gemfile.lock).
    def bundle(dir, lines)
      gemfile = File.join(dir, "Gemfile")
      return gemfile if File.exist?("#{gemfile}.lock")

      FileUtils.mkdir_p(dir)
      File.write(gemfile, <<~GEMFILE)
        source "https://rubygems.org"
        #{pinned.join("\n")}
        #{lines.join("\n")}
      GEMFILE
      _, err, status = run({ "BUNDLE_GEMFILE" => gemfile }, "bundle", "lock", "--local", chdir: dir)
      raise "bundle lock --local failed for #{gemfile}:\n#{err}" unless status.success?

      gemfile
    end

    PINNED = %w[railties actionpack actionview activesupport json jbuilder].freeze

    # The Gemfile's lines for Rails' frameworks and the gems they must share
    # with the running bundle, at its versions. A gem the running bundle
    # takes from a folder (Rails main, gemfiles/rails-edge.gemfile, is on no
    # gem server) comes from the same folder, and so does every other gem it
    # takes from one (ractor-dispatch, which its gems require themselves:
    # not Bundler.require's), Jetson's checkout aside.
    def pinned
      specs = Gem.loaded_specs
      names = PINNED | specs.keys.select { |name| name != "jetson" && from_folder?(specs[name]) }
      names.filter_map do |name|
        spec = specs[name]
        next unless spec

        path = from_folder?(spec) ? %(, path: #{spec.full_gem_path.dump}) : ""
        path += ", require: false" unless PINNED.include?(name)
        %(gem #{name.dump}, "= #{spec.version}"#{path})
      end
    end

    def from_folder?(spec)
      spec.respond_to?(:source) && spec.source.is_a?(Bundler::Source::Path)
    end

    # A command outside the running bundle (its RUBYOPT and BUNDLE_*
    # settings), with `env`.
    def run(env, *command, chdir:)
      # (The Ruby 4.0.0dev leg's bundles compile every native gem.)
      env = env.merge("BUNDLE_FORCE_RUBY_PLATFORM" => ENV.fetch("BUNDLE_FORCE_RUBY_PLATFORM", nil)).compact
      Bundler.with_unbundled_env do
        Open3.capture3(env, *command, chdir: chdir)
      end
    end
  end
end
