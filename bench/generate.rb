# frozen_string_literal: true

# Jetson.generate vs json / JSON::Coder / Oj on the json gem's encoder cases.
#
#   bundle exec ruby --yjit bench/generate.rb [--quick] [case-name-filter ...]
#   bundle exec ruby bench/generate.rb --callgrind[=N] [case-name-filter ...]
#
# See bench/README.md for what is measured and how to read the output.

require_relative "support/setup"
require_relative "support/callgrind"
require_relative "support/steady_process"
require_relative "support/floor"
require "date"

options = JetsonBench::Options.parse_or_usage("bench/generate.rb", callgrind: true)

PRETTY_OPTS = { indent: "  ", space: " ", object_nl: "\n", array_nl: "\n" }.freeze

OJ_NOTES = {
  pretty: "Oj: mode: :compat with json-style layout options (indent: \"  \", space: \" \", object_nl/array_nl: \"\\n\") " \
          "reproduces pretty_generate's bytes; Oj's integer `indent: 2` would drop the space after ':'.",
  script_safe: "Oj: no exact script_safe equivalent. Oj.dump in mode :compat forces escape_mode :json unless it is :ascii " \
               "(so :xss_safe / :slash / :unicode_xss are silently ignored there). Closest used here: " \
               "mode: :strict, escape_mode: :slash (escapes '/' like script_safe, but not U+2028/U+2029; " \
               ":xss_safe would also escape < > & and all non-ASCII).",
  ascii_only: "Oj: mode: :compat, escape_mode: :ascii is the ascii_only equivalent, but also escapes DEL (0x7f) as \\u007f, " \
              "which json leaves raw."
}.freeze

CODER_TO_S_NOTE = "JSON::Coder always runs in strict mode, which rejects Object/Class/Time/Date; it is given an as_json " \
                  "block { |o| o.to_s } that reproduces what the generic #to_json emits."

# Standard contender set for one document.
#   opts:   generate options (nil: none); pretty: use pretty_generate
#   oj:     options for Oj.dump; oj_note: footnote about the Oj equivalence
def standard_case(name, doc, opts: nil, pretty: false, oj: { mode: :compat }, oj_note: nil,
                  coder_block: nil, coder_note: nil, notes: [])
  state_opts = pretty ? PRETTY_OPTS : opts
  expected = pretty ? JSON.pretty_generate(doc) : JSON.generate(doc, opts)
  locals = { doc: doc, opts: opts }
  contenders = []
  add = lambda do |label, role, compare: :bytes, note: nil, &build|
    code, extra = build.call
    contenders << JetsonBench::Contender.new(label, code, role: role, compare: compare, note: note,
                                             locals: locals.merge(extra || {}))
  rescue StandardError, NotImplementedError => e
    err = e
    contenders << JetsonBench::Contender.new(label, role: role, callable: -> { raise err })
  end

  add.call("Jetson.generate", :subject) { pretty ? "Jetson.pretty_generate(doc)" : "Jetson.generate(doc, opts)" }
  add.call("Jetson::State#generate", :subject) do
    ["state.generate(doc)", { state: state_opts ? Jetson::State.new(state_opts) : Jetson::State.new }]
  end
  add.call("JSON.generate", :peer) { pretty ? "JSON.pretty_generate(doc)" : "JSON.generate(doc, opts)" }
  if defined?(JSON::Coder)
    add.call("JSON::Coder#dump", :peer, note: coder_note) do
      # json 3 takes keywords only; json 2 also took a positional options Hash.
      ["coder.dump(doc)", { coder: JSON::Coder.new(**(state_opts || {}), &coder_block) }]
    end
  end
  if defined?(Oj) && oj
    # Short label; the exact options are in the case's footnote / this file.
    parts = [oj[:mode]&.to_s, oj[:escape_mode] && "escape #{oj[:escape_mode]}", pretty ? "pretty opts" : nil]
    label = "Oj.dump(#{parts.compact.join(', ')})"
    add.call(label, :peer, compare: :parsed, note: oj_note) { ["Oj.dump(doc, oj_opts)", { oj_opts: oj }] }
  end
  # What a call costs that no generator can go below: a C method called as
  # Jetson.generate is (the same arguments) that returns a fresh String of
  # the expected bytes (bench/support/floor/floor.c). Timed in the same
  # rounds; its output is not compared (role :floor).
  if (floor = JetsonBench::Floor.writer(expected))
    add.call(JetsonBench::Floor::LABEL, :floor) do
      [pretty ? "floor.generate(doc)" : "floor.generate(doc, opts)", { floor: floor }]
    end
    # The walk floor: the same call, visiting every value of doc first as
    # a generator on Ruby's public C API must (rb_hash_foreach for Hashes),
    # writing nothing: about the most any such generator's ratio can be.
    add.call(JetsonBench::Floor::WALK_LABEL, :floor) do
      [pretty ? "floor.walk(doc)" : "floor.walk(doc, opts)", { floor: floor }]
    end
  else
    notes += [JetsonBench::Floor.problem]
  end

  JetsonBench::Case.new(name, reference: -> { expected }, contenders: contenders, notes: notes)
end

def data_doc(name)
  d = JetsonBench::Documents.load(name)
  [d.value, d.synthetic? ? [d.note] : []]
end

def data_case(name, file, **kw)
  doc, notes = data_doc(file)
  standard_case(name, doc, notes: notes + (kw.delete(:notes) || []), **kw)
end

# Case name => builder (documents are only loaded for selected cases).
CASES = {
  "small mixed" => -> { standard_case("small mixed", [1, "string", { a: 1, b: 2 }, [3, 4, 5]]) },
  "small nested array" => -> { standard_case("small nested array", [[1, 2, 3, 4, 5]] * 10) },
  "small hash" => lambda {
    standard_case("small hash", { "username" => "jhawthorn", "id" => 123, "event" => "wrote json serializer" })
  },
  "mixed utf8" => -> { standard_case("mixed utf8", [("a" * 5000) + "€" + ("a" * 5000)] * 500) },
  "mostly utf8" => -> { standard_case("mostly utf8", ["€" * 3333] * 500) },
  "integers" => -> { standard_case("integers", (1_000_000..1_001_000).to_a) },
  "activitypub.json" => -> { data_case("activitypub.json", "activitypub") },
  "twitter.json" => -> { data_case("twitter.json", "twitter") },
  "citm_catalog.json" => -> { data_case("citm_catalog.json", "citm_catalog") },
  "canada.json" => -> { data_case("canada.json", "canada") },
  "many #to_json calls" => lambda {
    # Time/Date fixed so the output is the same from run to run (Object#to_s
    # still includes an address, constant within the process).
    doc = [{ object: Object.new, int: 12, float: 54.3, class: Float,
             time: Time.utc(2024, 5, 6, 7, 8, 9), date: Date.new(2024, 5, 6) }] * 20
    standard_case("many #to_json calls", doc, coder_block: proc { |o| o.to_s }, coder_note: CODER_TO_S_NOTE)
  },
  "1000 symbol values" => -> { standard_case("1000 symbol values", Array.new(1000) { |i| :"sym#{i}" }) },
  "1000 symbol keys" => lambda {
    standard_case("1000 symbol keys", Array.new(1000) { |i| [:"key#{i}", i] }.to_h)
  },
  "twitter.json pretty" => lambda {
    data_case("twitter.json pretty", "twitter", pretty: true,
                                                oj: { mode: :compat, **PRETTY_OPTS }, oj_note: OJ_NOTES[:pretty])
  },
  "twitter.json script_safe" => lambda {
    data_case("twitter.json script_safe", "twitter", opts: { script_safe: true },
                                                     oj: { mode: :strict, escape_mode: :slash }, oj_note: OJ_NOTES[:script_safe])
  },
  "twitter.json ascii_only" => lambda {
    data_case("twitter.json ascii_only", "twitter", opts: { ascii_only: true },
                                                    oj: { mode: :compat, escape_mode: :ascii }, oj_note: OJ_NOTES[:ascii_only])
  }
}
# Canonical JSON (RFC 8785) against json 3.1's, which added it (Oj has none).
if Gem::Version.new(JSON::VERSION) >= Gem::Version.new("3.1")
  %w[twitter citm_catalog canada].each do |file|
    CASES["#{file}.json rfc8785"] = -> { data_case("#{file}.json rfc8785", file, opts: { rfc8785: true }, oj: nil) }
  end
end
CASES.freeze

if options.list
  puts CASES.keys
  exit
end

# The process the --callgrind parent runs under valgrind: one case, by its
# exact name.
if options.callgrind_child
  _, build = CASES.find { |name, _| options.filters == [name.downcase] }
  abort "--callgrind-child: no case named #{options.filters.join(' ').inspect}" unless build
  JetsonBench::Callgrind.child(build.call, options.callgrind_child)
  exit
end

selected = CASES.select { |name, _| options.match?(name) }
abort "no case matches #{options.filters.inspect}; cases: #{CASES.keys.join(', ')}" if selected.empty?

if options.callgrind
  # Built here, if it must be, rather than in a child under valgrind.
  JetsonBench::Floor.available?
  JetsonBench::Callgrind.run(selected.keys, calls: options.callgrind, options: options,
                                            script: File.expand_path(__FILE__), argv: ARGV)
  exit
end

# Timed runs only: instruction counts depend on neither.
JetsonBench::SteadyProcess.ensure!(ARGV)

puts "Jetson generate benchmark — #{options.describe}"
JetsonBench::Environment.facts(options).each { |k, v| puts "  #{k}: #{v}" }
puts "  (allocation measurement off)" unless options.alloc
puts "  (bytes/call unavailable: memory_profiler not loadable)" if options.alloc && !JetsonBench::Allocations.available_bytes?

runner = JetsonBench::Runner.new(options)
selected.each_value { |build| runner.run([build.call]) }
results = runner.results

puts
JetsonBench::Documents.loaded.each { |d| puts "data: #{d.note}" }
JetsonBench::Report.print_summary(results)

if options.write
  path = JetsonBench.results_path("generate.md")
  JetsonBench::Report.write_markdown(
    path, title: "Jetson generate benchmark", results: results, options: options,
          data_notes: JetsonBench::Documents.notes,
          command: "bundle exec ruby #{JetsonBench::Environment.yjit? ? '--yjit ' : ''}bench/generate.rb #{ARGV.join(' ')}".strip
  )
  puts "\nwrote #{path}"
end
