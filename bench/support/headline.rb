# frozen_string_literal: true

module JetsonBench
  # The headline of the benchmarks: one row per use, each number read from
  # a results file (bench/results/*.md, or the quick look's tmp/bench-quick/),
  # never typed in. `rake bench:chart` turns it into the README's table and
  # docs/images/speedups.svg (bench/support/chart.rb); `rake bench` does the
  # same from its own short runs.
  #
  # A row names its file, the table (by a column header) and the table rows
  # (by their first cell) it reads; a file, table, row or cell that is not
  # there raises Headline::Missing naming it, so a results file whose layout
  # changed fails the task instead of drawing a chart without that bar.
  module Headline
    class Missing < StandardError; end

    # One bar of the chart: a value (or a range low..high, drawn as a bar to
    # low with a lighter part up to high) and its text as the file has it.
    Bar = Struct.new(:label, :low, :high, :text, keyword_init: true) do
      def range? = high != low
    end

    # One use: its bars, what Jetson is compared with, where it ran.
    Use = Struct.new(:title, :against, :table_cell, :bars, :cpu, :ruby, :date, :file, keyword_init: true)

    # A markdown table of a results file: its header cells and body rows.
    Table = Struct.new(:header, :rows) do
      def column(name) = header.index(name)

      # The row whose first cell is name, ignoring the footnote marks a
      # results file puts after a case's name ("canada.json (!) [1,2,3]", "canada.json [1]").
      def row(name)
        rows.find { |r| r.first == name || r.first.sub(/(?:\s+\(!\))?(?:\s+\[[\d,]+\])?\z/, "") == name }
      end
    end

    # A results file, parsed once.
    class Results
      attr_reader :path, :text

      def initialize(path)
        @path = path
        raise Missing, "#{path}: no such results file" unless File.file?(path)

        @text = File.read(path, encoding: Encoding::UTF_8)
        @tables = parse_tables(@text)
      end

      def name = File.basename(path)

      # The CPU line every results file has ("- **CPU**: ...", "- CPU: ..."),
      # without the vendor's marks and the count of cores.
      def cpu
        line = text[/^- (?:\*\*)?CPU(?:\*\*)?:\s*(.+)$/, 1] or raise Missing, "#{path}: no CPU line"
        line.gsub(/\((?:R|TM)\)/, "").sub(/\s+Processor\b/, "").sub(/[,;]\s*\d+ cores? visible/, "")
            .sub(/\)\s*$/, ")").gsub(/\s+/, " ").strip
      end

      def ruby
        (text[/^- (?:\*\*)?Ruby(?:\*\*)?:\s*ruby (\S+)/, 1] or raise Missing, "#{path}: no Ruby line") +
          (text.match?(/^- (?:\*\*)?Ruby(?:\*\*)?:.*\+YJIT/) ? " +YJIT" : "")
      end

      def date
        text[/(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}:\d{2}Z/, 1] or raise Missing, "#{path}: no date"
      end

      # The first table that has a column named column and a row named row.
      def table(column, row)
        @tables.find { |t| t.column(column) && t.row(row) } or
          raise Missing, "#{path}: no table with a column \"#{column}\" and a row \"#{row}\""
      end

      # The cell's text, e.g. "1.65× (0.93–2.44)" or "37.1 ms".
      def cell(column, row)
        t = table(column, row)
        value = t.row(row)[t.column(column)]
        raise Missing, "#{path}: the cell \"#{row}\" / \"#{column}\" is empty" if value.nil? || value.empty?

        value
      end

      # The ratio a cell leads with ("2.80× (1.89–3.23)", "1.30× ± 0.03").
      def ratio(column, row)
        value = cell(column, row)
        Float(value[/\A(\d+(?:\.\d+)?)×/, 1] || raise(Missing, "#{path}: \"#{row}\" / \"#{column}\" " \
                                                                "is \"#{value}\", not a ratio"))
      end

      private

      def parse_tables(text)
        tables = []
        lines = text.lines.map(&:strip)
        i = 0
        while i < lines.size
          if lines[i].start_with?("|") && lines[i + 1].to_s.match?(/\A\|[\s:|-]+\|\z/)
            header = cells(lines[i])
            i += 2
            rows = []
            while i < lines.size && lines[i].start_with?("|")
              rows << cells(lines[i])
              i += 1
            end
            tables << Table.new(header, rows)
          else
            i += 1
          end
        end
        tables
      end

      def cells(line) = line.sub(/\A\|/, "").sub(/\|\z/, "").split("|", -1).map(&:strip)
    end

    module_function

    def ratio_text(value) = format("%.2f×", value)

    # "index 1.43×, nested 1.91×": the table's cell, a short name per bar.
    def cell_text(names, bars) = names.zip(bars).map { |name, b| "#{name} #{b.text}" }.join(", ")

    def bar(label, value) = Bar.new(label: label, low: value, high: value, text: ratio_text(value))

    def range_bar(label, values)
      low, high = values.minmax
      Bar.new(label: label, low: low, high: high, text: "#{ratio_text(low)}–#{ratio_text(high)}")
    end

    def use(results, **fields)
      Use.new(cpu: results.cpu, ruby: results.ruby, date: results.date, file: results.name, **fields)
    end

    # The generator's cases in the chart: the small documents of the json
    # gem's encoder benchmark and its three large documents.
    GENERATOR_CASES = ["small mixed", "small hash", "small nested array", "twitter.json", "citm_catalog.json",
                       "canada.json"].freeze
    RECORD_SHAPES = %w[A1 A2 A3 A4 A5 A6].freeze

    # Every use, in the order a Rails team reads them: what its endpoints
    # gain first (as deployed, views, render json:, records), then Jbuilder
    # code, streaming and the generator. dir holds the results files.
    def uses(dir)
      files = Hash.new { |h, name| h[name] = Results.new(File.join(dir, name)) }
      # (records-oj.md: `bench/records.rb --oj`, which the quick look does not run.)
      oj = File.file?(File.join(dir, "records-oj.md")) ? [records_oj(files["records-oj.md"])] : []
      [deploy(files["deploy.md"]), views(files["views.md"]), render_json(files["rails.md"]),
       records(files["records.md"]), *oj, builder(files["builder.md"]), streaming(files["streaming.md"]),
       generator(files["generate.md"])]
    end

    def deploy(r)
      endpoints = { "index" => "index", "nested" => "nested partials", "composed" => "partials with locals",
                    "cached" => "cached collection", "render_json" => "render json: @posts" }
      bars = endpoints.map { |row, label| bar(label, r.ratio("ratio", row)) }
      use(r, title: "Endpoints under puma, production (Jbuilder views, render json:)",
             against: "the jbuilder gem + ActiveSupport's encoder", bars: bars,
             table_cell: cell_text(%w[index nested composed cached render\ json:], bars))
    end

    def views(r)
      bars = { "index" => "index", "nested" => "nested partials", "cached" => "cached collection" }.map do |key, label|
        bar(label, r.ratio("#{key} ÷ gem", "Jetson (jetson/jbuilder)"))
      end
      use(r, title: "Jbuilder views through the Rails stack", against: "the jbuilder gem", bars: bars,
             table_cell: cell_text(%w[index nested cached], bars))
    end

    def render_json(r)
      rows = { "Hash and Time payload, render json:" => "render json: a Hash and Time payload",
               "Hash and Time payload .to_json" => "to_json, the same payload",
               "posts.to_json(include:, methods:)" => "posts.to_json(include:, methods:)" }
      bars = rows.map { |row, label| bar(label, r.ratio("Jetson / stock", row)) }
      use(r, title: "Rails mode: render json: and to_json", against: "ActiveSupport's encoder", bars: bars,
             table_cell: cell_text(["render json:", "to_json", "records' to_json(include:)"], bars))
    end

    def records(r)
      whole = range_bar("whole call, load included", RECORD_SHAPES.map { r.ratio("Jetson ÷ stock (i/s)", _1) })
      above = range_bar("time above the load", RECORD_SHAPES.map { r.ratio("above floor: stock ÷ Jetson", _1) })
      use(r, title: "ActiveRecord collections' to_json, fresh loads (6 shapes)", against: "ActiveSupport's encoder",
             bars: [whole], table_cell: "#{whole.text} (above the load: #{above.text})")
    end

    OJ_RECORD_SHAPES = %w[A1 A2 A3 A4 A5 A6 A7 A8].freeze

    # An app that called Oj.optimize_rails: Jetson::OjEncoder against Oj's
    # Rails encoder, the same bytes.
    def records_oj(r)
      above = range_bar("time above the load", OJ_RECORD_SHAPES.map { r.ratio("above floor: stock ÷ Jetson", _1) })
      whole = range_bar("whole call, load included", OJ_RECORD_SHAPES.map { r.ratio("Jetson ÷ stock (i/s)", _1) })
      use(r, title: "ActiveRecord collections under Oj.optimize_rails, fresh loads (8 shapes)",
             against: "Oj's Rails encoder", bars: [whole],
             table_cell: "#{above.text} above the load (whole call: #{whole.text})")
    end

    def builder(r)
      row = "Jetson::Builder (jetson/jbuilder)"
      bars = [bar("vs the jbuilder gem", r.ratio("÷ Jbuilder", row)), bar("vs panko", r.ratio("÷ panko", row))]
      use(r, title: "Jbuilder code outside views (100 posts, 20 comments each)",
             against: "the jbuilder gem; panko_serializer", bars: bars,
             table_cell: cell_text(["the jbuilder gem", "panko"], bars))
    end

    # No ratio in this file: the table shows its times, the chart leaves it out.
    def streaming(r)
      jetson = "render json_stream: (Jetson::RailsEncoder)"
      stock = "render json: (stock encoder)"
      first = ->(row) { r.cell("time to first byte", row) }
      total = ->(row) { r.cell("total", row) }
      records = r.text[/^- (\d+) records/, 1] or raise Missing, "#{r.path}: no record count"
      use(r, title: "render json_stream: #{records.to_i.to_s.reverse.scan(/\d{1,3}/).join(',').reverse} records",
             against: "render json: (ActiveSupport's encoder)", bars: [],
             table_cell: "first byte #{first[jetson]} vs #{first[stock]}; total #{total[jetson]} vs #{total[stock]}")
    end

    def generator(r)
      bars = GENERATOR_CASES.map { bar(_1, r.ratio("ratio ± spread", _1)) }
      low, high = bars.map(&:low).minmax
      use(r, title: "The generator (Jetson.generate)", against: "the fastest of json, JSON::Coder, Oj",
             bars: bars, table_cell: "#{ratio_text(low)}–#{ratio_text(high)}")
    end

    # "Intel Xeon (cpu family 6, model 207)" => "Intel Xeon (6/207)": the
    # chart's short form.
    def short_cpu(cpu) = cpu.sub(/\(cpu family (\d+), model (\d+)\)/, '(family \1, model \2)')

    # The README's table.
    def markdown(uses)
      lines = ["| use | speedup | against | CPU |", "| :--- | :--- | :--- | :--- |"]
      uses.each do |u|
        lines << "| #{u.title} | #{u.table_cell} | #{u.against} | #{u.cpu} |"
      end
      lines.join("\n")
    end
  end
end
