# frozen_string_literal: true

require "open3"

# docs/architecture.md's tables read as a map of the tree: which files they
# name, which names point at nothing, and which files of the mapped folders
# no table names (test/architecture_map_test.rb). Two kinds of table count:
#
#   | layer | files | ... |   the extension's layers: a row names files of
#                             ext/jetson/LAYER/ (`top`: ext/jetson/ itself)
#                             in its files cell; an empty layer cell is the
#                             row above's layer.
#   | path | ... |            a row's first cell names folders (`lib/jetson/`,
#                             ending in a slash) and files from the root;
#                             its other cells name files and sub-folders of
#                             those folders (a sub-folder covers the files
#                             below it: the generators' templates).
#
# Other tables (the hooks) name no files. Anywhere in the document, a code
# span that looks like a C or Ruby file name, and a file name in a
# diagram's labels, must name one that is there.
module ArchitectureMap
  # The folders every file of which a table must name; a file is ignored
  # where git ignores it (builds: lib/jetson/RUBY_VERSION/, *.so, *.d).
  MAPPED = %w[ext/jetson lib/jetson.rb lib/jetson script].freeze
  SOURCE_EXTENSIONS = %w[c h rb].freeze

  # The report of a map: names that point at nothing, files no table names.
  Report = Struct.new(:stale, :unmapped, keyword_init: true)

  module_function

  # The files of MAPPED under root, relative to it: git's tracked and
  # untracked-but-not-ignored files where root is a checkout (so a file
  # added but not committed counts), every file otherwise.
  def tree_files(root, mapped = MAPPED)
    files = git_files(root, mapped) || mapped.flat_map do |path|
      full = File.join(root, path)
      File.directory?(full) ? Dir.glob("**/*", base: full).map { File.join(path, _1) } : [path]
    end
    files.select { File.file?(File.join(root, _1)) }.sort.uniq
  end

  # nil where root is not a checkout's top (a copy in a temporary
  # directory) or git is missing.
  def git_files(root, mapped)
    return nil unless git_root?(root)

    out, status = Open3.capture2("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                                 "--", *mapped)
    status.success? ? out.split("\0") : nil
  rescue Errno::ENOENT
    nil
  end

  # Whether root is a checkout's top (not a folder inside another
  # repository, as a copy in a temporary directory may be).
  def git_root?(root)
    top, _, status = Open3.capture3("git", "-C", root, "rev-parse", "--show-toplevel")
    status.success? && File.realpath(top.strip) == File.realpath(root)
  end

  def code_spans(text) = text.scan(/`([^`\n]+)`/).flatten

  # The source files a diagram's labels name (```mermaid blocks: no code
  # spans there).
  def diagram_names(doc)
    doc.scan(/^```mermaid\n(.*?)^```/m).flatten.join.scan(%r{[\w/-]+\.(?:c|h|rb)\b})
  end

  def cells(line) = line.strip.delete_prefix("|").delete_suffix("|").split(/(?<!\\)\|/).map(&:strip)

  # The document's tables: [header cells, [row cells...]] each.
  def tables(doc)
    doc.lines.chunk_while { |a, b| a.start_with?("|") && b.start_with?("|") }
       .select { _1.first.start_with?("|") && _1.size >= 2 }
       .map { |lines| [cells(lines[0]).map(&:downcase), lines.drop(2).map { cells(_1) }] }
  end

  # A code span that names a file or a folder relative to where it stands.
  def path_like?(span)
    span.match?(%r{\A[\w.\-/]+\z}) && !span.start_with?(".") &&
      (span.end_with?("/") || SOURCE_EXTENSIONS.include?(File.extname(span).delete_prefix(".")))
  end

  # Reads doc (the text of docs/architecture.md) against the tree at root.
  def check(root, doc, files = tree_files(root))
    reading = Reading.new(root)
    tables(doc).each do |header, rows|
      case header.first
      when "layer" then reading.layer_rows(rows)
      when "path" then rows.each { reading.path_row(_1) }
      end
    end
    reading.text(code_spans(doc) + diagram_names(doc), files.map { File.basename(_1) })
    Report.new(stale: reading.stale.uniq, unmapped: files.reject { reading.covers?(_1) })
  end

  # What the tables of one document name, found or not.
  class Reading
    attr_reader :stale

    def initialize(root)
      @root = root
      @named = []     # files, relative to root
      @folders = []   # sub-folders named in a row, relative to root, ending in /
      @stale = []
      @in_tables = [] # every span a table row resolved, found or not
    end

    def exist?(path)
      full = File.join(@root, path)
      path.end_with?("/") ? File.directory?(full) : File.file?(full)
    end

    # A sub-folder named in a row covers the files below it (the
    # generators' templates), but only one inside a mapped folder: a row
    # that mentions `lib/` in passing does not map every file of lib/.
    def covers?(file)
      @named.include?(file) ||
        @folders.any? { |dir| file.start_with?(dir) && MAPPED.any? { |top| dir.start_with?("#{top}/") && dir != "#{top}/" } }
    end

    # The layers' table: each row's files cell, in its layer's folder.
    def layer_rows(rows)
      layer = nil
      rows.each do |row|
        layer = row[0] unless row[0].to_s.empty?
        base = layer == "top" ? "ext/jetson/" : "ext/jetson/#{layer}/"
        ArchitectureMap.code_spans(row[1].to_s).each do |name|
          @in_tables << name
          exist?(base + name) ? @named << base + name : @stale << "#{base}#{name} (the #{layer} row of the layers' table)"
        end
      end
    end

    # A path table's row: the folders and files of its first cell, then
    # what its other cells name in those folders (or from the root).
    def path_row(row)
      bases = []
      ArchitectureMap.code_spans(row[0].to_s).each do |entry|
        @in_tables << entry
        next @stale << "#{entry} (a path cell)" unless exist?(entry)

        entry.end_with?("/") ? bases << entry : @named << entry
      end
      row.drop(1).flat_map { ArchitectureMap.code_spans(_1) }.select { ArchitectureMap.path_like?(_1) }.each do |name|
        @in_tables << name
        found = (bases.map { _1 + name } + [name, "ext/jetson/#{name}", "lib/#{name}"]).find { exist?(_1) }
        next @stale << "#{name} (the row of #{row[0]})" unless found

        found.end_with?("/") ? @folders << found : @named << found
      end
    end

    # The text and the other tables: a source file's name, with its folder
    # or without, must be one the mapped tree has.
    def text(spans, basenames)
      (spans.select { ArchitectureMap.path_like?(_1) && !_1.end_with?("/") }.uniq - @in_tables).each do |span|
        known = span.include?("/") ? [span, "ext/jetson/#{span}", "lib/#{span}"].any? { exist?(_1) } : basenames.include?(span)
        @stale << "#{span} (in the text)" unless known
      end
    end
  end

  # Where a file no table names belongs, for the failure's message.
  def where_it_goes(path)
    case path
    when %r{\Aext/jetson/([^/]+)/} then "the #{$1} rows of the layers' table (| layer | files | ...)"
    when %r{\Aext/jetson/} then "the top rows of the layers' table"
    when %r{\Ascript/} then "the scripts' table (| path | ...)"
    else "the row of #{File.dirname(path)}/ in the Ruby side's table (| path | ...)"
    end
  end
end
