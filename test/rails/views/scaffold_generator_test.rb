# frozen_string_literal: true

# `rails g scaffold` in an app that loads jetson/jbuilder in place of the
# jbuilder gem (lib/jetson/views/generators.rb) against the same commands in
# an app with the gem: every file written and every line the generators print
# must be the same, byte for byte, and the generated controllers and views
# must answer the same requests with the same responses.
#
# Each world runs in child processes (this file with --scaffold-child), in
# an app of its own under a temporary directory, as a process holds one
# Rails application and the test process already holds the views app:
#
#   generate: boots an app (config.root = the directory), loads the
#             generators as `bin/rails g` does and runs the CASES; the app
#             cases go to the app itself, the others each to a directory of
#             their own. It reports, case by case, what the generators
#             printed and which files they wrote or removed.
#   render:   boots the generated app (its routes, models, controllers and
#             views), migrates an in-memory sqlite3 database with the
#             generated migrations and sends REQUESTS through Rack, at fixed
#             times, so that both worlds create the same records. Its config
#             says `config.generators.jbuilder = false`, which only matters
#             to the generators: it then runs JBUILDER_OFF_CASES (here rather
#             than in children of their own, to keep the test short), with
#             the app's own templates (CUSTOM_TEMPLATES in lib/templates).
#
# The Jetson children take the jbuilder gem off the load path (an app that
# swaps the gem has no gem to find) and report that none of its files was
# loaded.

require "fileutils"
require "rbconfig"

module ScaffoldChild
  # [label, generator, arguments]: generated into the app, then rendered.
  APP_CASES = [
    [:plain, "scaffold", %w[post title:string body:text published:boolean views:integer]],
    [:namespaced, "scaffold", %w[admin/article title:string position:integer]],
    [:api, "scaffold", %w[widget name:string price:decimal --api]],
    [:no_jbuilder, "scaffold", %w[note body:text --no-jbuilder]],
    [:no_timestamps, "scaffold", %w[tag name:string --no-timestamps]],
    [:no_attributes, "scaffold", %w[thing]]
  ].freeze

  # Generated each into a directory of its own (not rendered: Active
  # Storage and Action Text are not in the bundle; bcrypt is, as Rails 8's
  # fixture template hashes a password:digest attribute with it).
  EXTRA_CASES = [
    [:virtual_attributes, "scaffold",
     %w[profile avatar:attachment photos:attachments bio:rich_text password:digest user:references
        owner:references{polymorphic} nickname:string]],
    [:virtual_attributes_api, "scaffold", %w[document file:attachment pages:attachments title:string --api]],
    [:model_name, "scaffold_controller", %w[admin/posts title:string --model-name=Post]],
    [:views_only, "jbuilder", %w[post title:string body:text]],
    [:views_only_no_timestamps, "jbuilder", %w[admin/post title:string --no-timestamps]],
    # In an engine (isolate_namespace Blog): the controller is namespaced
    # and requires the engine's ApplicationController.
    [:engine, "scaffold", %w[entry title:string body:text]],
    # `bin/rails destroy scaffold` after `bin/rails g scaffold`.
    [:destroy, "scaffold", %w[post title:string]],
    # With Rails::VERSION::MAJOR set to 8 for the case: the controllers'
    # Rails 8 branch (params.expect), not the rest of Rails 8's generators.
    [:rails8_params, "scaffold", %w[memo title:string files:attachments]],
    [:rails8_params_api, "scaffold", %w[memo title:string files:attachments --api]],
    [:rails8_no_attributes, "scaffold", %w[memo]]
  ].freeze

  # In the render child, whose config says `config.generators.jbuilder = false`.
  JBUILDER_OFF_CASES = [
    [:config_off, "scaffold", %w[post title:string]],
    [:config_off_but_asked, "scaffold", %w[article title:string --jbuilder]],
    [:custom_templates, "scaffold", %w[gizmo name:string photo:attachment --api --jbuilder]]
  ].freeze

  # An app's lib/templates, over the generators' own (as an app customizes
  # them), calling the helpers the jbuilder gem's templates call.
  CUSTOM_TEMPLATES = {
    "lib/templates/rails/jbuilder/partial.json.jbuilder" => <<~'ERB',
      # A custom partial for <%= singular_table_name %> (<%= partial_path_name %>)
      json.extract! <%= singular_table_name %>, <%= full_attributes_list %>
      <%- virtual_attributes.each do |attribute| -%>
      json.<%= attribute.name %> nil
      <%- end -%>
    ERB
    "lib/templates/rails/scaffold_controller/api_controller.rb.tt" => <<~'ERB'
      class <%= controller_class_name %>Controller < ApplicationController
        # permits <%= permitted_params %>, fails with <%= status_unprocessable_content %>
      end
    ERB
  }.freeze

  BASE_TIME = [2024, 3, 9, 8, 30, 15].freeze

  # [method, path, JSON body]: at BASE_TIME + their index, in seconds.
  REQUESTS = [
    ["POST", "/posts.json",
     { post: { title: "First <post> & more", body: "Body\u2028 é", published: true, views: 3 } }],
    ["POST", "/posts.json", { post: { title: "Second", body: nil, published: false, views: 0 } }],
    ["POST", "/posts.json", { post: { title: "", body: "no title" } }], # 422 (a validation the test adds)
    ["GET", "/posts.json"],
    ["GET", "/posts/1.json"],
    ["PATCH", "/posts/1.json", { post: { title: "Edited", views: 4 } }],
    ["PATCH", "/posts/2.json", { post: { title: "" } }],
    ["DELETE", "/posts/2.json"],
    ["GET", "/posts.json"],
    ["GET", "/posts/2.json"], # ActiveRecord::RecordNotFound
    ["POST", "/admin/articles.json", { admin_article: { title: "Admin <article>", position: 1 } }],
    ["POST", "/admin/articles.json", { admin_article: { title: "Another", position: 2 } }],
    ["GET", "/admin/articles.json"],
    ["GET", "/admin/articles/2.json"],
    ["PATCH", "/admin/articles/2.json", { admin_article: { position: 5 } }],
    ["POST", "/widgets.json", { widget: { name: "Widget", price: "9.99" } }],
    ["POST", "/widgets.json", { widget: { name: "Gadget", price: "0.5" } }],
    ["GET", "/widgets.json"],
    ["GET", "/widgets/1.json"],
    ["PATCH", "/widgets/1.json", { widget: { price: "10.25" } }],
    ["DELETE", "/widgets/2.json"],
    ["GET", "/widgets.json"],
    ["POST", "/notes.json", { note: { body: "no JSON views" } }], # ActionView::MissingTemplate
    ["GET", "/notes.json"],
    ["POST", "/tags.json", { tag: { name: "ruby" } }],
    ["GET", "/tags.json"],
    ["GET", "/tags/1.json"],
    ["POST", "/things.json"],
    ["POST", "/things.json", { thing: { ignored: 1 } }],
    ["GET", "/things.json"],
    ["GET", "/things/2.json"]
  ].freeze

  class << self
    def main(mode, world, dir, out)
      off_the_load_path if world == "jetson"
      result = case mode
               when "generate" then generate(world, dir)
               when "render" then render(world, dir)
               else raise ArgumentError, mode
               end
      result[:gem_files_loaded] = $LOADED_FEATURES.select { |path| gem_file?(path) }
      File.binwrite(out, Marshal.dump(result))
    end

    private

    def off_the_load_path
      $LOAD_PATH.reject! { |path| gem_file?(path) }
    end

    def gem_file?(path)
      @gem_dir ||= Gem.loaded_specs["jbuilder"]&.full_gem_path || File.join(Gem.dir, "gems", "jbuilder-")
      path.start_with?(@gem_dir)
    end

    def boot(world, root, jbuilder: true)
      require "rails"
      require "active_record/railtie"
      require "action_controller/railtie"
      require "action_view/railtie"
      require "rails/test_unit/railtie" # test_framework :test_unit, as in `rails new` apps
      require "logger"
      # As Bundler.require loads it in an app whose Gemfile has bcrypt: the
      # fixture template of Rails 8.1 calls BCrypt::Password.create while it
      # generates (7.2's and 8.0's leave the call in the fixture's ERB).
      require "bcrypt"
      world == "jetson" ? require("jetson/jbuilder") : require("jbuilder")
      ENV["DATABASE_URL"] = "sqlite3::memory:"
      app = Class.new(::Rails::Application) do
        config.root = root
        config.eager_load = false
        config.enable_reloading = false
        config.logger = ::Logger.new(nil)
        config.secret_key_base = "scaffold"
        config.active_support.deprecation = :silence
        config.action_dispatch.show_exceptions = :none
        config.action_controller.allow_forgery_protection = false
        config.hosts.clear
        config.generators.jbuilder = false unless jbuilder
      end
      Object.const_set(:ScaffoldApp, app)
      app.initialize!
      require_relative "../../../kit/stock_encoder_json3"
      Kit::StockEncoderJson3.repair_if_refused # ActiveSupport 8.0 under json 3 (see there)
      app
    end

    # What `bin/rails new` leaves that the scaffold writes into or needs.
    def skeleton(root)
      %w[app/models app/controllers app/helpers app/views/layouts config db/migrate lib test].each do |path|
        FileUtils.mkdir_p(File.join(root, path))
      end
      File.write(File.join(root, "config/routes.rb"), "Rails.application.routes.draw do\nend\n")
      File.write(File.join(root, "app/models/application_record.rb"),
                 "class ApplicationRecord < ActiveRecord::Base\n  primary_abstract_class\nend\n")
      File.write(File.join(root, "app/controllers/application_controller.rb"),
                 "class ApplicationController < ActionController::Base\nend\n")
    end

    def generate(world, dir)
      root = File.join(dir, "app")
      skeleton(root)
      app = boot(world, root)
      app.load_generators # as bin/rails generate does
      cases = APP_CASES.map { |label, generator, args| run_case(label, root) { invoke(root, generator, args) } }
      { cases: cases + extra_cases(dir, EXTRA_CASES) }
    end

    def extra_cases(dir, cases)
      cases.map do |label, generator, args|
        destination = File.join(dir, "extra", label.to_s)
        skeleton(destination)
        run_case(label, destination) { extra_case(label, destination, generator, args) }
      end
    end

    def extra_case(label, destination, generator, args)
      case label
      when :engine
        Object.const_set(:Blog, Module.new) unless defined?(::Blog)
        ::Rails::Generators.namespace = ::Blog
        begin
          invoke(destination, generator, args)
        ensure
          ::Rails::Generators.namespace = nil
        end
      when :destroy
        invoke(destination, generator, args)
        invoke(destination, generator, args, behavior: :revoke)
      when /\Arails8_/
        with_rails_major(8) { invoke(destination, generator, args) }
      else
        invoke(destination, generator, args)
      end
    end

    def with_rails_major(major)
      loaded = ::Rails::VERSION::MAJOR
      ::Rails::VERSION.send(:remove_const, :MAJOR)
      ::Rails::VERSION.const_set(:MAJOR, major)
      yield
    ensure
      ::Rails::VERSION.send(:remove_const, :MAJOR)
      ::Rails::VERSION.const_set(:MAJOR, loaded)
    end

    def invoke(destination, generator, args, behavior: :invoke)
      Dir.chdir(destination) do # bin/rails runs in the app's root
        ::Rails::Generators.invoke(generator, args.dup, behavior: behavior, destination_root: destination)
      end
    end

    # What the block printed and what it changed under root: path => bytes,
    # :directory, or nil for a removed path.
    def run_case(label, root)
      require "stringio"
      before = snapshot(root)
      stdout = $stdout
      $stdout = StringIO.new
      begin
        yield
        log = $stdout.string
      ensure
        $stdout = stdout
      end
      after = snapshot(root)
      changed = (before.keys | after.keys).sort.reject { |path| before[path] == after[path] }
      { label: label, log: log, files: changed.to_h { |path| [path, after[path]] } }
    end

    def snapshot(root)
      Dir.glob("**/*", base: root).sort.to_h do |path|
        full = File.join(root, path)
        [path, File.directory?(full) ? :directory : File.binread(full)]
      end
    end

    def render(world, dir)
      root = File.join(dir, "app")
      CUSTOM_TEMPLATES.each do |path, text|
        FileUtils.mkdir_p(File.dirname(File.join(root, path)))
        File.write(File.join(root, path), text)
      end
      app = boot(world, root, jbuilder: false)
      require "rack/mock"
      require "json"
      require "active_support/testing/time_helpers"
      ::ActiveRecord::Migration.verbose = false
      ::ActiveRecord::MigrationContext.new(File.join(root, "db/migrate")).migrate
      # So that create and update can fail (render json: errors, 422).
      ::Post.validates :title, presence: true
      clock = Object.new.extend(::ActiveSupport::Testing::TimeHelpers)
      base = Time.utc(*BASE_TIME)
      outcomes = REQUESTS.each_with_index.map do |(method, path, body), i|
        clock.travel_to(base + i)
        request(method, path, body)
      ensure
        clock.travel_back
      end
      template = ::JbuilderTemplate.instance_method(:cache!).source_location.first
      app.load_generators
      { outcomes: outcomes, template: template, cases: extra_cases(dir, JBUILDER_OFF_CASES) }
    end

    def request(method, path, body)
      env = { method: method, "HTTP_ACCEPT" => "application/json" }
      env.update(input: JSON.generate(body), "CONTENT_TYPE" => "application/json") if body
      response = Rack::MockRequest.new(::Rails.application).request(method, path, env)
      { request: "#{method} #{path}", status: response.status, content_type: response.content_type,
        location: response.location, body: response.body }
    rescue StandardError => e
      { request: "#{method} #{path}", error: e.class.name }
    end
  end
end

if ARGV.first == "--scaffold-child"
  ScaffoldChild.main(*ARGV.drop(1))
  exit
end

require "test_helper"
require "json"
require "tmpdir"

class ScaffoldGeneratorTest < Minitest::Test
  WORLDS = %w[jbuilder jetson].freeze
  LIB = File.expand_path("../../../lib", __dir__)

  class << self
    # { world => { "generate" => result, "render" => result } },
    # run once for every test of the class.
    def results
      @results ||= run_children
    end

    private

    def run_children
      dir = Dir.mktmpdir("jetson-scaffold")
      Minitest.after_run { FileUtils.rm_rf(dir) }
      results = WORLDS.to_h { |world| [world, {}] }
      # The render children read the apps the generate children wrote.
      %w[generate render].each do |mode|
        jobs = WORLDS.map { |world| spawn_child(dir, world, mode) }
        jobs.each { |job| results[job[:world]][job[:mode]] = finish_child(job) }
      end
      results
    end

    def spawn_child(dir, world, mode)
      base = File.join(dir, world)
      FileUtils.mkdir_p(base)
      out = File.join(dir, "#{world}-#{mode}.bin")
      err = File.join(dir, "#{world}-#{mode}.err")
      command = [RbConfig.ruby, "-I", LIB, File.expand_path(__FILE__), "--scaffold-child", mode, world, base, out]
      pid = Process.spawn(*command, out: File::NULL, err: err)
      { world: world, mode: mode, pid: pid, out: out, err: err }
    end

    def finish_child(job)
      _, status = Process.wait2(job[:pid])
      unless status.success? && File.exist?(job[:out])
        raise "the #{job[:world]} #{job[:mode]} child failed (#{status}):\n#{File.read(job[:err])}"
      end

      Marshal.load(File.binread(job[:out])) # rubocop:disable Security/MarshalLoad -- our own child's answer
    end
  end

  def setup
    skip "subprocess tests do not run under valgrind" if ENV["JETSON_MEMCHECK"]
  end

  # Migration file names carry the time they were generated at.
  def normalize(text)
    text.gsub(%r{(db/migrate/)\d{14}_}, '\1TIMESTAMP_')
  end

  # Rails 8.1's fixtures hold a bcrypt hash made with a random salt: its
  # cost is kept, the salt and digest are not comparable.
  def normalize_content(content)
    return content unless content.is_a?(String)

    content.gsub(%r{\$2[abxy]\$(\d\d)\$[./A-Za-z0-9]{53}}, '$2a$\1$BCRYPT')
  end

  def generated(world, label, mode: "generate")
    found = self.class.results.fetch(world).fetch(mode)[:cases].find { |c| c[:label] == label }
    files = found[:files].to_h { |path, content| [normalize(path), normalize_content(content)] }
    [normalize(found[:log]), files]
  end

  # The same output and the same files, byte for byte, as the jbuilder gem.
  def assert_same_generation(label, mode: "generate")
    gem_log, gem_files = generated("jbuilder", label, mode: mode)
    log, files = generated("jetson", label, mode: mode)
    assert_equal gem_log, log, "#{label}: what the generators print"
    assert_equal gem_files.keys, files.keys, "#{label}: the files written"
    gem_files.each do |path, content|
      assert_equal content, files[path], "#{label}: #{path}"
    end
    files
  end

  def jbuilder_views(files)
    files.keys.grep(/\.json\.jbuilder\z/)
  end

  # The generated app/controllers/<name>_controller.rb holds every snippet.
  def assert_controller_includes(files, name, *snippets)
    controller = files["app/controllers/#{name}_controller.rb"]
    snippets.each { |snippet| assert_includes controller, snippet }
  end

  def test_plain_scaffold
    files = assert_same_generation(:plain)
    assert_equal %w[app/views/posts/_post.json.jbuilder app/views/posts/index.json.jbuilder
                    app/views/posts/show.json.jbuilder], jbuilder_views(files)
    assert_equal "json.array! @posts, partial: \"posts/post\", as: :post\n",
                 files["app/views/posts/index.json.jbuilder"]
    assert_equal "json.partial! \"posts/post\", post: @post\n", files["app/views/posts/show.json.jbuilder"]
    assert_equal "json.extract! post, :id, :title, :body, :published, :views, :created_at, :updated_at\n" \
                 "json.url post_url(post, format: :json)\n", files["app/views/posts/_post.json.jbuilder"]
    assert_controller_includes(files, "posts", "format.json { render :show, status: :created, location: @post }",
                               "format.json { head :no_content }")
  end

  def test_namespaced_scaffold
    files = assert_same_generation(:namespaced)
    assert_equal "json.array! @admin_articles, partial: \"admin/articles/admin_article\", as: :admin_article\n",
                 files["app/views/admin/articles/index.json.jbuilder"]
    assert_includes files["app/views/admin/articles/_admin_article.json.jbuilder"],
                    "json.url admin_article_url(admin_article, format: :json)"
  end

  def test_api_scaffold
    files = assert_same_generation(:api)
    assert_equal 3, jbuilder_views(files).size
    assert_empty files.keys.grep(/\.html\.erb\z/)
    assert_controller_includes(files, "widgets", "render :show, status: :created, location: @widget",
                               "render :show, status: :ok, location: @widget")
  end

  def test_no_jbuilder
    files = assert_same_generation(:no_jbuilder)
    assert_empty jbuilder_views(files)
    assert files.key?("app/controllers/notes_controller.rb")
    refute_includes generated("jetson", :no_jbuilder).first, "jbuilder"
  end

  def test_no_timestamps
    files = assert_same_generation(:no_timestamps)
    assert_equal "json.extract! tag, :id, :name\njson.url tag_url(tag, format: :json)\n",
                 files["app/views/tags/_tag.json.jbuilder"]
  end

  def test_no_attributes
    files = assert_same_generation(:no_attributes)
    assert_controller_includes(files, "things", "params.fetch(:thing, {})")
  end

  # attachment, attachments, rich_text, password:digest, references and
  # polymorphic references.
  def test_virtual_attributes_and_passwords
    files = assert_same_generation(:virtual_attributes)
    partial = files["app/views/profiles/_profile.json.jbuilder"]
    assert_includes partial, "json.avatar url_for(profile.avatar)"
    assert_includes partial, "json.bio profile.bio.to_s"
    assert_includes partial, "json.array!(profile.photos) do |photo|"
    refute_includes partial, ":password"
    assert_includes partial, ":user_id, :owner_id, :owner_type"
    assert_same_generation(:virtual_attributes_api)
  end

  def test_model_name
    files = assert_same_generation(:model_name)
    assert_equal "json.array! @posts, partial: \"admin/posts/post\", as: :post\n",
                 files["app/views/admin/posts/index.json.jbuilder"]
  end

  def test_views_only
    assert_equal 3, jbuilder_views(assert_same_generation(:views_only)).size
    assert_same_generation(:views_only_no_timestamps)
  end

  def test_engine
    files = assert_same_generation(:engine)
    controller = files.find { |path, _| path.end_with?("entries_controller.rb") }&.last
    assert_includes controller, "require_dependency \"blog/application_controller\""
  end

  def test_destroy
    assert_same_generation(:destroy)
  end

  def test_rails8_params_expect
    assert_controller_includes(assert_same_generation(:rails8_params), "memos", "@memo = Memo.find(params.expect(:id))",
                               "params.expect(memo: [ :title, files: [] ])")
    assert_controller_includes(assert_same_generation(:rails8_params_api), "memos",
                               "params.expect(memo: [ :title, files: [] ])")
    assert_controller_includes(assert_same_generation(:rails8_no_attributes), "memos", "params.fetch(:memo, {})")
  end

  # config.generators.jbuilder = false, and --jbuilder over it.
  def test_turned_off_in_the_config
    assert_empty jbuilder_views(assert_same_generation(:config_off, mode: "render"))
    assert_equal 3, jbuilder_views(assert_same_generation(:config_off_but_asked, mode: "render")).size
  end

  def test_the_apps_own_templates
    files = assert_same_generation(:custom_templates, mode: "render")
    assert_equal "# A custom partial for gizmo (gizmos/gizmo)\n" \
                 "json.extract! gizmo, :id, :name, :photo, :created_at, :updated_at\njson.photo nil\n",
                 files["app/views/gizmos/_gizmo.json.jbuilder"]
    assert_controller_includes(files, "gizmos", "# permits :name, :photo, fails with unprocessable_content")
  end

  def test_jetson_loads_nothing_of_the_jbuilder_gem
    results = self.class.results
    %w[generate render].each do |mode|
      assert_empty results["jetson"][mode][:gem_files_loaded], mode
      refute_empty results["jbuilder"][mode][:gem_files_loaded], mode
    end
    assert_includes results["jetson"]["render"][:template], "/lib/jetson/"
    assert_includes results["jbuilder"]["render"][:template], "/jbuilder-"
  end

  # The generated app answers every request as the app of the gem does: same
  # status, Content-Type, Location and body bytes, or the same exception.
  def test_the_generated_app_renders_the_same
    expected = self.class.results["jbuilder"]["render"][:outcomes]
    actual = self.class.results["jetson"]["render"][:outcomes]
    assert_equal expected.size, actual.size
    expected.zip(actual).each do |want, got|
      assert_equal want, got, want[:request]
    end
  end

  def outcome(request)
    self.class.results["jetson"]["render"][:outcomes].find { |o| o[:request] == request } || flunk(request)
  end

  def test_the_generated_views_render_json
    index = outcome("GET /posts.json")
    assert_equal 200, index[:status]
    assert_equal "application/json; charset=utf-8", index[:content_type]
    posts = JSON.parse(index[:body])
    assert_equal [%w[id title body published views created_at updated_at url]], posts.map(&:keys).uniq
    assert_equal "http://example.org/posts/1.json", posts.first["url"]
    assert_equal "First <post> & more", posts.first["title"]

    created = outcome("POST /widgets.json")
    assert_equal 201, created[:status]
    assert_equal "http://example.org/widgets/1", created[:location]
    widget = JSON.parse(created[:body])
    assert_equal({ "id" => 1, "name" => "Widget", "price" => "9.99" }, widget.slice("id", "name", "price"))

    article = JSON.parse(outcome("GET /admin/articles/2.json")[:body])
    assert_equal %w[id title position created_at updated_at url], article.keys
    assert_equal "http://example.org/admin/articles/2.json", article["url"]
    assert_equal %w[id name url], JSON.parse(outcome("GET /tags/1.json")[:body]).keys
    assert_equal 422, outcome("PATCH /posts/2.json")[:status]
    assert_equal 204, outcome("DELETE /widgets/2.json")[:status]
    assert_equal "ActionView::MissingTemplate", outcome("POST /notes.json")[:error]
  end
end
