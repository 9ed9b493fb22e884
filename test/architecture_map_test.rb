# frozen_string_literal: true

require "test_helper"
require "support/architecture_map"
require "tmpdir"
require "fileutils"

# docs/architecture.md is the map of the code: every file of ext/jetson/,
# lib/jetson/ and script/ is named in its tables, and every file it names is
# there. The list of files is read from the tree (git's, where this is a
# checkout), so a file added, renamed or removed fails here until the doc
# says so; the failure names each file and the table it belongs in.
class ArchitectureMapTest < Minitest::Test
  DOC = File.join(ROOT, "docs/architecture.md")
  MAP = ArchitectureMap

  def test_the_doc_names_every_file_of_the_tree_and_nothing_else
    files = MAP.tree_files(ROOT)
    # The tree was read: the layers' folders, the Ruby side and the scripts.
    %w[ext/jetson/jetson.c ext/jetson/bytes/base.h lib/jetson.rb lib/jetson/rails/rails.rb script/check_layers].each do |f|
      assert_includes files, f
    end
    refute files.any? { _1.end_with?(".so", ".o") }, "build products are not part of the map"
    report = MAP.check(ROOT, File.read(DOC), files)
    message = +""
    report.unmapped.each { message << "docs/architecture.md names no #{_1}: add it to #{MAP.where_it_goes(_1)}\n" }
    report.stale.each { message << "docs/architecture.md names #{_1}, which the tree does not have\n" }
    assert_empty report.unmapped + report.stale, message
  end

  # A small tree and a map of it, for the check's own rules.
  TREE = %w[ext/jetson/jetson.c ext/jetson/bytes/base.h ext/jetson/bytes/base.c lib/jetson.rb lib/jetson/state.rb
            lib/jetson/views/generators/jbuilder/index.json.jbuilder.tt script/check_layers].freeze
  MAP_DOC = <<~MD
    # Map

    | layer | files | what |
    | :--- | :--- | :--- |
    | bytes | `base.h`, `base.c` | the base |
    | top | `jetson.c` | the entry |

    The walk calls `bytes/base.c`; `base.h` opens it.

    ```mermaid
    flowchart TB
        bytes["bytes/<br/>the base"] -. "bytes/base.c's functions" .- top["jetson.c"]
    ```

    | path | what |
    | :--- | :--- |
    | `lib/jetson.rb`, `lib/jetson/` | `state.rb` (`Jetson::State`, `State#to_h`) |
    | `lib/jetson/views/` | `generators/` (the templates) |
    | `script/check_layers` | the layout |

    | hook | where |
    | :--- | :--- |
    | `string` | `json.rb` is not a file of this table's kind |
  MD

  def with_tree(files = TREE)
    Dir.mktmpdir("jetson-map") do |root|
      files.each do |f|
        FileUtils.mkdir_p(File.join(root, File.dirname(f)))
        File.write(File.join(root, f), "")
      end
      yield root
    end
  end

  def test_a_complete_map_passes
    with_tree do |root|
      assert_equal TREE.sort, MAP.tree_files(root)
      report = MAP.check(root, MAP_DOC)
      assert_empty report.unmapped
      # `json.rb` in the hooks' table is prose: a name no file of the tree has.
      assert_equal ["json.rb (in the text)"], report.stale
    end
  end

  def test_a_file_the_tables_do_not_name_is_reported_with_its_table
    with_tree(TREE + %w[ext/jetson/json/mode.h lib/jetson/rails/oj_rules.rb script/arm64_leg]) do |root|
      report = MAP.check(root, MAP_DOC.sub("| `string` | `json.rb` is not a file of this table's kind |\n", ""))
      assert_equal %w[ext/jetson/json/mode.h lib/jetson/rails/oj_rules.rb script/arm64_leg], report.unmapped
      assert_empty report.stale
      assert_match(/the json rows of the layers' table/, MAP.where_it_goes("ext/jetson/json/mode.h"))
      assert_match(%r{the row of lib/jetson/rails/}, MAP.where_it_goes("lib/jetson/rails/oj_rules.rb"))
    end
  end

  def test_a_name_that_points_at_nothing_is_reported
    with_tree(TREE - %w[ext/jetson/bytes/base.c lib/jetson/state.rb script/check_layers]) do |root|
      doc = MAP_DOC.sub("| `string` | `json.rb` is not a file of this table's kind |\n", "")
      report = MAP.check(root, doc)
      assert_empty report.unmapped
      assert_includes report.stale, "ext/jetson/bytes/base.c (the bytes row of the layers' table)"
      assert_includes report.stale, "state.rb (the row of `lib/jetson.rb`, `lib/jetson/`)"
      assert_includes report.stale, "script/check_layers (a path cell)"
      # The text's mention is one more place to update (the diagram's, the same name, with it).
      assert_includes report.stale, "bytes/base.c (in the text)"
      assert_equal 4, report.stale.size, report.stale.inspect
      # The diagram's labels are read too: without the text's mention, its own.
      report = MAP.check(root, doc.sub("The walk calls `bytes/base.c`; ", "The walk calls it; "))
      assert_includes report.stale, "bytes/base.c (in the text)"
    end
  end

  def test_a_row_of_another_folder_does_not_cover_a_file
    with_tree do |root|
      # state.rb named in the views row: lib/jetson/views/state.rb, not there.
      doc = MAP_DOC.sub("`state.rb` (`Jetson::State`, `State#to_h`)", "the json layer")
                   .sub("`generators/` (the templates)", "`generators/`, `state.rb`")
      report = MAP.check(root, doc)
      assert_equal ["lib/jetson/state.rb"], report.unmapped
      assert_includes report.stale, "state.rb (the row of `lib/jetson/views/`)"
    end
  end

  # A folder mentioned in a row (`lib/` in a sentence) maps nothing below a
  # mapped folder; only a sub-folder inside one (the generators') covers its
  # files.
  def test_a_folder_above_the_mapped_ones_covers_no_file
    with_tree(TREE + %w[lib/jetson/views/render_events.rb]) do |root|
      doc = MAP_DOC.sub("`generators/` (the templates)", "`generators/` (the templates), all of `lib/`")
      report = MAP.check(root, doc)
      assert_equal ["lib/jetson/views/render_events.rb"], report.unmapped
    end
  end
end
