# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "fileutils"
require "support/views_diff"

# Jbuilder::DependencyTracker finds the partials a .json.jbuilder template
# renders (partial! calls, partial: options, "Template Dependency" comments)
# as the jbuilder gem's tracker does; unlike the jbuilder gem (2.15.1, which
# defines its tracker but does not register it), Jetson registers it, so
# cache digests change when a partial a cached block renders changes.
class ViewsDependencyTrackerTest < Minitest::Test
  SOURCES = [
    ['json.partial! "comments/comment", comment: c', "plain partial!"],
    ["json.partial!('comments/comment')", "parenthesised, single quotes"],
    ["json.partial!( \"comments/comment\" , locals: {})", "spaces"],
    ['json.partial! partial: "posts/post", locals: { post: post }', "partial: option"],
    ['json.partial! :partial => "posts/post"', "hash rocket"],
    ['json.array! @posts, partial: "posts/summary", as: :post', "array! with partial:"],
    ['json.comments post.comments, partial: "comments/comment", as: :comment', "key with partial:"],
    ["json.partial! @post", "a model: not found in the source"],
    ['json.partial! "posts/#{kind}"', "interpolated"],
    ["# Template Dependency: shared/box\njson.x 1", "explicit"],
    ["# Template Dependency: posts/*\njson.x 1", "explicit wildcard"],
    ["# Template Dependency: posts/*\n# Template Dependency: shared/box\n# Template Dependency: shared/box", "repeated"],
    ["json.a 1; json.partial! \"a/b\"; json.partial!('c/d'); json.list x, partial: 'e/f', as: :g", "several"],
    ["json.partial!(\"a/b\", partial: \"c/d\")", "both forms on one call"],
    ["json.partial! \"a/b'", "unbalanced quotes"],
    ["json.x partial:\n  \"posts/post\"", "option on the next line"],
    ["foo.partial! 'x/y'", "another receiver"],
    ["json.partial!\"x/y\"", "no space"]
  ].freeze

  def items
    files = Dir[File.join(Kit::ViewsApp.root, "views/**/*.jbuilder")].sort.map do |path|
      [path.delete_prefix("#{Kit::ViewsApp.root}/views/").sub(/\.json\.jbuilder\z/, ""), File.read(path)]
    end
    files + SOURCES.each_with_index.map { |(source, _), i| ["cases/tracker_#{i}", source] }
  end

  def test_the_same_dependencies_as_the_jbuilder_gems_tracker
    list = items
    expected = ViewsOracle.perform({ tracker: list })[:dependencies]
    actual = ViewsRunner.perform({ tracker: list })[:dependencies]
    list.each_with_index do |(name, _), i|
      refute_equal :error, expected[i].first, "the jbuilder gem's tracker: #{expected[i].inspect}"
      assert_equal expected[i], actual[i], "dependencies of #{name}"
    end
    assert(actual.any? { |deps| deps.include?("posts/summary") })
    assert(actual.any? { |deps| deps.size > 2 }, "wildcards expand")
  end

  def test_registered_for_jbuilder_templates
    ActionView::Base # the Railtie registers it when ActionView loads
    template = ActionView::Template.new('json.partial! "shared/box"', "t.json.jbuilder", JbuilderHandler,
                                        locals: [], format: :json, virtual_path: "cases/t")
    assert_equal ["shared/box"], ActionView::DependencyTracker.find_dependencies("cases/t", template)
  end

  def test_a_changed_partial_changes_the_digest
    Dir.mktmpdir("jetson-digest") do |dir|
      FileUtils.mkdir_p("#{dir}/outer")
      File.write("#{dir}/outer/show.json.jbuilder", "json.cache! [1] do\n  json.partial! \"outer/inner\"\nend\n")
      File.write("#{dir}/outer/_inner.json.jbuilder", "json.version 1\n")
      spec = { digests: { dir: dir, names: ["outer/show"] } }
      gem_before = ViewsOracle.perform(spec)[:digests]
      jetson_before = ViewsRunner.perform(spec)[:digests]
      File.write("#{dir}/outer/_inner.json.jbuilder", "json.version 2\n")
      gem_after = ViewsOracle.perform(spec)[:digests]
      jetson_after = ViewsRunner.perform(spec)[:digests]
      refute_equal jetson_before, jetson_after, "Jetson: the digest must see the partial"
      # The oracle's own behaviour, which is why fragment keys are compared
      # without their digest elsewhere: if a jbuilder release registers its
      # tracker, this fails and the comparison can include digests again.
      assert_equal gem_before, gem_after, "the jbuilder gem now tracks partials: compare digests again"
    end
  end
end
