# frozen_string_literal: true

require "test_helper"
require "support/subprocess"
require "open3"
require "tmpdir"
require "fileutils"

# script/check_layers (the first task of `rake test`): this checkout keeps
# the layout's rules, and a copy of it with a load or an include that goes
# up a layer is refused, naming the file and the line.
class CheckLayersTest < Minitest::Test
  include JetsonSubprocess

  SCRIPT = File.join(ROOT, "script/check_layers")

  def setup
    skip_subprocess_under_valgrind
  end

  def check(*args)
    out, err, status = Open3.capture3(CLEAN_ENV, RbConfig.ruby, SCRIPT, *args)
    [out, err, status]
  end

  def test_this_checkout_keeps_the_rules
    out, err, status = check
    assert status.success?, out + err
    assert_match(/\Acheck_layers: \d+ files, every include downward/, out)
    assert_match(/^check_lib_layers: \d+ files, every load downward \(json < rails < builder < views < streaming/, out)
  end

  # A copy of ext/jetson and lib/ (sources only), changed by the block.
  def with_copy
    Dir.mktmpdir("jetson-layers") do |dir|
      ext = File.join(dir, "ext/jetson")
      lib = File.join(dir, "lib")
      Dir.chdir(ROOT) do
        Dir.glob("{ext/jetson/{,*/}*.{c,h},lib/**/*.rb}").each do |path|
          FileUtils.mkdir_p(File.join(dir, File.dirname(path)))
          FileUtils.cp(path, File.join(dir, path))
        end
      end
      yield ext, lib
    end
  end

  def append(path, text)
    File.write(path, File.read(path) + text)
    File.read(path).count("\n") - text.count("\n") + 1 # the line the text starts on
  end

  def test_an_upward_load_anywhere_in_a_file_is_refused
    with_copy do |ext, lib|
      lines = {
        "rails/diagnostics.rb" => append(File.join(lib, "jetson/rails/diagnostics.rb"),
                                         %(require_relative "../views/railtie" if defined?(::Rails)\n)),
        # lazily, in a method of a class
        "views/partial_renderer.rb" => append(File.join(lib, "jetson/views/partial_renderer.rb"),
                                              "class Jetson::Views::PartialRenderer\n  def stream\n" \
                                              "    require \"jetson/streaming/streaming\"\n  end\nend\n") + 2,
        "builder/jbuilder.rb" => append(File.join(lib, "jetson/builder/jbuilder.rb"),
                                        %(Jetson.autoload :Later, "jetson/views/fragment_cache"\n)),
        # an entry point is on top
        "builder/builder.rb" => append(File.join(lib, "jetson/builder/builder.rb"), %(require("jetson/jbuilder")\n)),
        "state.rb" => append(File.join(lib, "jetson/state.rb"), %(Kernel.require "jetson/rails/rails"\n))
      }
      # Not loads: the word in a String, a comment, another object's method.
      append(File.join(lib, "jetson/rails/oj_takeover.rb"),
             %(# require "jetson/views/railtie"\nJetson::WORDS = ["require 'jetson/railtie'", :require].freeze\n) +
             %(Jetson::WORDS.respond_to?(:require) && Jetson::WORDS.require("jetson/railtie")\n))
      first_include = append(File.join(ext, "bytes/buffer.c"), %(#include "builder/builder.h"\n))

      out, _err, status = check(ext, lib)
      refute status.success?, out
      assert_includes out, %(lib/jetson/rails/diagnostics.rb:#{lines['rails/diagnostics.rb']}: ) +
                           %(require_relative "../views/railtie": rails may load only json, rails, not views)
      assert_includes out, %(lib/jetson/views/partial_renderer.rb:#{lines['views/partial_renderer.rb']}: ) +
                           %(require "jetson/streaming/streaming": views may load only json, rails, builder, views, ) +
                           "not streaming"
      assert_includes out, %(lib/jetson/builder/jbuilder.rb:#{lines['builder/jbuilder.rb']}: ) +
                           %(autoload "jetson/views/fragment_cache": builder may load only json, rails, builder, not views)
      assert_includes out, %(lib/jetson/builder/builder.rb:#{lines['builder/builder.rb']}: require "jetson/jbuilder": ) +
                           "builder may load only json, rails, builder, not the top (lib/jetson/jbuilder.rb)"
      assert_includes out, %(lib/jetson/state.rb:#{lines['state.rb']}: require "jetson/rails/rails": ) +
                           "json may load only json, not rails"
      assert_includes out, %(bytes/buffer.c:#{first_include}: #include "builder/builder.h": ) +
                           "bytes may include only bytes, not builder"
      assert_includes out, "check_lib_layers: 5 against the layout's rules"
      refute_includes out, "oj_takeover.rb"
    end
  end

  def test_a_load_the_check_cannot_follow_or_find_is_refused
    with_copy do |ext, lib|
      computed = append(File.join(lib, "jetson/views/fragment_cache.rb"), %(require "jetson/\#{:rails}/rails"\n))
      missing = append(File.join(lib, "jetson/rails/db_cast.rb"), %(require "jetson/rails/nothing_here"\n))
      FileUtils.mkdir_p(File.join(lib, "jetson/misc"))
      File.write(File.join(lib, "jetson/misc/helper.rb"), "# frozen_string_literal: true\n")

      out, _err, status = check(ext, lib)
      refute status.success?, out
      assert_includes out, "lib/jetson/views/fragment_cache.rb:#{computed}: require (a computed name): " \
                           "a name the check cannot follow"
      assert_includes out, "lib/jetson/rails/db_cast.rb:#{missing}: require \"jetson/rails/nothing_here\": " \
                           "no such file (lib/jetson/rails/nothing_here.rb)"
      assert_includes out, "lib/jetson/misc/helper.rb: in jetson/misc/, which is not a layer"
    end
  end
end
