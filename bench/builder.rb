# frozen_string_literal: true

# Templates and serializers: Jetson::Builder (Jbuilder's DSL on Jetson) and a
# hand-driven Jetson::Writer against real Jbuilder and the serializers people
# pick for speed (alba, panko, blueprinter), ActiveSupport's to_json, a Hash
# built by hand for JSON.generate and a hand-driven Oj::StringWriter, on the
# collection of the serializer projects' benchmark: 100 ActiveRecord posts,
# each with 20 comments by 2 commenters, preloaded.
#
#   bundle exec ruby --yjit bench/builder.rb [--quick] [contender-filter ...]
#
# Filters select contenders by label (Jbuilder, the reference, and the floor,
# the template alone on a null builder, always run).
# See bench/README.md for what is checked and how rounds, ratios and
# allocations are measured.

require_relative "support/setup"
require_relative "support/rails_stock"
require_relative "../kit/collection"
require "benchmark/memory"
require "objspace"
require "jbuilder"
require_relative "support/collection_serializers"

BLUEPRINTER_VERSION = JetsonBench::Environment.gem_version("blueprinter") || "?" # no VERSION constant loaded

options = JetsonBench::Options.parse_or_usage("bench/builder.rb") do |usage|
  usage.sub("list the case names", "list the contender labels")
       .sub("FILTER       case-insensitive substring of case names", "FILTER       case-insensitive substring of contender labels")
end

# Jetson::Builder / Jetson::Writer are optional: the benchmark runs without
# them (their contenders are skipped with a note).
SKIPPED = []
begin
  require "jetson/builder" # the extension defines the class; this file completes it
rescue LoadError => e
  SKIPPED << "Jetson::Builder (jetson/jbuilder): not available (#{e.message})"
end
SKIPPED << "Jetson::Writer by hand: Jetson::Writer is not defined" unless defined?(Jetson::Writer)

# Jbuilder#target! and Array#to_json go through ActiveSupport.json_encoder:
# those two always run on the stock encoder, whatever a library loaded above
# installed; every other contender runs with the encoder found after loading.
# With --oj the app calls Oj.optimize_rails: the jbuilder gem and to_json run
# on Oj's encoder, and jetson/jbuilder on the encoder a Rails app using it
# then gets (Jetson::OjEncoder, Oj's bytes written natively:
# lib/jetson/rails/oj_takeover.rb); Jetson's bytes must be those of the
# jbuilder gem with Oj.
if options.oj?
  Oj.optimize_rails
  STOCK_ENCODER = Oj::Rails::Encoder
  LOADED_ENCODER = Jetson::OjEncoder
else
  STOCK_ENCODER = JetsonBench::RailsStock::ENCODER
  LOADED_ENCODER = ActiveSupport.json_encoder
end

# ---------------------------------------------------------------------------
# Data: 100 posts, 20 comments each by 2 commenters, in sqlite3 :memory:.
# Every contender gets its own freshly loaded collection, so that the SQL
# check below is independent for each of them (one contender's first call
# cannot load an association the next one would then find loaded).

Kit::Collection.seed(posts: 100)

def count_sql
  queries = []
  subscriber = ActiveSupport::Notifications.subscribe("sql.active_record") do |*, payload|
    queries << "#{payload[:name]}: #{payload[:sql]}"
  end
  result = yield
  [result, queries]
ensure
  ActiveSupport::Notifications.unsubscribe(subscriber) if subscriber
end

LOAD_QUERIES = []
def load_posts
  posts, queries = count_sql { Post.includes(:comments, :commenters).order(:id).to_a }
  LOAD_QUERIES.replace(queries)
  posts
end

# ---------------------------------------------------------------------------
# The template: one source String, compiled once per contender, so real
# Jbuilder and Jetson::Builder run the same code (each with call sites of its
# own). Under `require "jetson/jbuilder"` this is what a .json.jbuilder view
# with this body runs.

TEMPLATE_SOURCE = <<~RUBY
  json.array! posts do |post|
    json.id post.id
    json.body post.body
    json.commenter_names post.commenter_names
    json.comments post.comments do |comment|
      json.id comment.id
      json.body comment.body
    end
  end
RUBY

def compile_template
  TOPLEVEL_BINDING.eval("->(json, posts) { #{TEMPLATE_SOURCE} }", "(template)")
end

# ---------------------------------------------------------------------------
# Serializers, each written from its gem's documented API
# (bench/support/collection_serializers.rb), the comments' attributes the
# template's. Blueprinter sorts fields by name (identifier first), which here
# is the template's order anyway.

module BuilderBench
  JetsonBench::CollectionSerializers.define(self, %i[id body])

  # The same document written by hand: every driver reads the records the
  # same way the template does (post.commenter_names, post.comments).
  module ByHand
    module_function

    # The document pushed onto a writer `w` (Jetson::Writer's and
    # Oj::StringWriter's push API are the same).
    PUSHES = <<~RUBY
      w.push_array
      posts.each do |post|
        w.push_object
        w.push_value(post.id, "id")
        w.push_value(post.body, "body")
        w.push_array("commenter_names")
        post.commenter_names.each { |name| w.push_value(name) }
        w.pop
        w.push_array("comments")
        post.comments.each do |comment|
          w.push_object
          w.push_value(comment.id, "id")
          w.push_value(comment.body, "body")
          w.pop
        end
        w.pop
        w.pop
      end
      w.pop
      w.to_s
    RUBY

    # jetson_writer and oj_string_writer run the same source, each compiled
    # into a method of its own: one shared method would make its call sites
    # see two writer classes, which costs both under YJIT. mode: :rails
    # escapes strings as ActiveSupport does (what Jbuilder's output goes
    # through); panko drives its writer in the same mode.
    WRITERS = { jetson_writer: "Jetson::Writer.new", oj_string_writer: "Oj::StringWriter.new(mode: :rails)" }.freeze
    WRITERS.each do |name, writer|
      module_eval("# frozen_string_literal: true\ndef #{name}(posts)\nw = #{writer}\n#{PUSHES}end", __FILE__, __LINE__)
      module_function name
    end

    def hash_generate(posts)
      JSON.generate(posts.map do |post|
        { "id" => post.id, "body" => post.body, "commenter_names" => post.commenter_names,
          "comments" => post.comments.map { |comment| { "id" => comment.id, "body" => comment.body } } }
      end)
    end
  end

  # The floor: the template's own cost, with no JSON work at all. The same
  # template source runs on this builder, which accepts exactly the calls the
  # template makes and keeps nothing: `json.array!(collection) { |x| }` and
  # `json.key(collection) { |x| }` yield each element, `json.key(value)` does
  # nothing. So the template reads the same records and attributes as under
  # Jbuilder (checked before timing, see FloorTrace), and whatever a builder
  # does on top of that is the cost of building JSON.
  #
  # It is written to allocate as little as possible itself: no rest or keyword
  # parameters (a `*rest` Array per call would be 4,400 objects per template
  # run), no `&block` (blocks pass on through `yield`; BasicObject has no
  # block_given?, hence `defined?(yield)`), and `each` rather than `map` (no
  # result Array). What it still allocates is itself: one object per template
  # run. The rest of the floor's objects are the template's reads, which every
  # contender makes: post.commenter_names (commenters.map(&:name): its Array
  # and the Array of ActiveRecord's `each(...)` delegation, 3 objects per post
  # on Ruby 3.1 / ActiveRecord 7.2) and CollectionProxy#each for post.comments
  # (the same delegation, 1 per post): 401 objects per run here. Jbuilder and
  # Jetson::Builder iterate with `map`, which goes through the same `each`.
  #
  # A call with more arguments than the template's (options, several keys)
  # raises ArgumentError: this builder is a floor for this template only.
  class NullBuilder < BasicObject
    def array!(collection)
      collection.each { |element| yield element } if defined?(yield)
      nil
    end

    def method_missing(_key, value = nil)
      value.each { |element| yield element } if defined?(yield)
      nil
    end
  end

  # Before timing: one template run on a NullBuilder whose singleton class
  # prepends this module, which logs each call and passes it on (super, with
  # its block), so that the log shows what NullBuilder's own methods made the
  # template read. It must equal Jbuilder's output walked in the same order.
  module FloorTrace
    LOG = []

    def array!(collection)
      LOG << [:array!, collection.size]
      super
    end

    def method_missing(key, value = nil)
      LOG << [key, defined?(yield) ? :block : value]
      super
    end
  end
end

COLLECTION_OPTIONS = { only: [:id, :body], methods: :commenter_names,
                       include: { comments: { only: [:id, :body] } } }.freeze

JBUILDER_LABEL = "Jbuilder"
FLOOR_LABEL = "template alone (null builder, no output)"
ContenderSpec = Struct.new(:label, :role, :code, :locals, :compare, :note, keyword_init: true)

SPECS = [
  ContenderSpec.new(label: JBUILDER_LABEL, role: :reference,
                    code: "ActiveSupport.json_encoder = encoder; Jbuilder.new { |json| template.call(json, posts) }.target!",
                    locals: -> { { template: compile_template, encoder: STOCK_ENCODER } },
                    note: "Jbuilder #{Jbuilder::VERSION}: the template, output through ActiveSupport.json_encoder = #{STOCK_ENCODER.name} (target! is @attributes.to_json)."),
  (if defined?(Jetson::Builder) && Jetson::Builder.method_defined?(:target!)
     ContenderSpec.new(label: "Jetson::Builder (jetson/jbuilder)", role: :subject,
                       code: "ActiveSupport.json_encoder = encoder; Jetson::Builder.new { |json| template.call(json, posts) }.target!",
                       locals: -> { { template: compile_template, encoder: LOADED_ENCODER } },
                       note: "Jetson::Builder running the same template source (what jetson/jbuilder makes ::Jbuilder run).")
   end),
  (if defined?(Jetson::Writer)
     ContenderSpec.new(label: "Jetson::Writer by hand", role: :subject,
                       code: "BuilderBench::ByHand.jetson_writer(posts)", locals: -> { {} },
                       note: "Jetson::Writer driven by hand: push_array/push_object/push_value(value, key)/pop.")
   end),
  ContenderSpec.new(label: FLOOR_LABEL, role: :floor, compare: :none,
                    code: "template.call(BuilderBench::NullBuilder.new, posts)",
                    locals: -> { { template: compile_template } },
                    note: "Floor: the same template source on BuilderBench::NullBuilder (yields each element of " \
                          "array! and of a key with a block, ignores every other value, returns nil): the " \
                          "template's own cost, reading the same records and attributes, with no JSON work. Its " \
                          "output is not compared (it has none), it is not a peer, and floor i/s ÷ Jbuilder i/s is " \
                          "the highest ratio any builder running this template could reach against Jbuilder " \
                          "(code that does not run the template, the peers and the writers by hand, is not bound by it)."),
  ContenderSpec.new(label: "alba", role: :peer, compare: :parsed,
                    code: "BuilderBench::AlbaPost.new(posts).serialize", locals: -> { {} },
                    note: "alba #{Alba::VERSION}: Alba::Resource with attributes and `many`, default backend " \
                          "(#{Alba.backend.inspect}: JSON.generate)."),
  ContenderSpec.new(label: "panko", role: :peer, compare: :parsed,
                    code: "Panko::ArraySerializer.new(posts, each_serializer: BuilderBench::PankoPost).to_json",
                    locals: -> { {} },
                    note: "panko_serializer #{Panko::VERSION}: Panko::ArraySerializer.new(posts, each_serializer:).to_json " \
                          "per call (as a controller does; it builds its serialization descriptor in new), " \
                          "commenter_names as a method field, has_many comments; writes with Oj::StringWriter(mode: :rails)."),
  ContenderSpec.new(label: "blueprinter", role: :peer, compare: :parsed,
                    code: "BuilderBench::PostBlueprint.render(posts)", locals: -> { {} },
                    note: "blueprinter #{BLUEPRINTER_VERSION}: Blueprinter::Base with identifier, fields, association; " \
                          "default generator (#{Blueprinter.configuration.generator}.#{Blueprinter.configuration.method})."),
  ContenderSpec.new(label: "to_json (ActiveSupport)", role: :peer, compare: :parsed,
                    code: "ActiveSupport.json_encoder = encoder; posts.to_json(options)",
                    locals: -> { { encoder: STOCK_ENCODER, options: COLLECTION_OPTIONS } },
                    note: "posts.to_json(#{COLLECTION_OPTIONS.inspect}) with ActiveSupport.json_encoder = #{STOCK_ENCODER.name}."),
  ContenderSpec.new(label: "Hash + JSON.generate", role: :peer, compare: :parsed,
                    code: "BuilderBench::ByHand.hash_generate(posts)", locals: -> { {} },
                    note: "A Hash per post built by hand (string keys), JSON.generate (json #{JSON::VERSION}) on the Array."),
  ContenderSpec.new(label: "Oj::StringWriter by hand", role: :peer, compare: :parsed,
                    code: "BuilderBench::ByHand.oj_string_writer(posts)", locals: -> { {} },
                    note: "Oj #{Oj::VERSION} Oj::StringWriter.new(mode: :rails) driven by hand like Jetson::Writer " \
                          "(its to_s ends with a newline)."),
].compact.freeze

if options.list
  puts SPECS.map(&:label)
  SKIPPED.each { |s| puts "(skipped) #{s}" }
  exit
end

# Jbuilder and the floor always run; filters pick among the others.
ALWAYS = %i[reference floor].freeze
specs = SPECS.select { |s| ALWAYS.include?(s.role) || options.match?(s.label) }
if options.filtered? && specs.none? { |s| !ALWAYS.include?(s.role) }
  abort "no contender matches #{options.filters.inspect}; contenders: #{SPECS.map(&:label).join(', ')}"
end

puts "Jetson builder benchmark — #{options.describe}"
FACTS = JetsonBench::Environment.facts(options) + [
  ["jbuilder / alba / panko_serializer / blueprinter",
   "#{Jbuilder::VERSION} / #{Alba::VERSION} / #{Panko::VERSION} / #{BLUEPRINTER_VERSION}"],
  ["activesupport / activerecord / sqlite3", "#{ActiveSupport.version} / #{ActiveRecord.version} / #{SQLite3::VERSION}"],
  ["benchmark-memory", JetsonBench::Environment.gem_version("benchmark-memory") || "?"],
  ["ActiveSupport.json_encoder after loading", LOADED_ENCODER.name]
].freeze
FACTS.each { |k, v| puts "  #{k}: #{v}" }
SKIPPED.each { |s| puts "  note: skipped #{s}" }

# ---------------------------------------------------------------------------
# Contenders, each on its own collection; one call each under the SQL counter.

contenders = specs.map do |s|
  JetsonBench::Contender.new(s.label, s.code, role: s.role, compare: s.compare || :bytes, note: s.note,
                                              locals: s.locals.call.merge(posts: load_posts))
end

first_outputs = {}
sql = {}
contenders.each do |c|
  out, queries = count_sql do
    c.once.call
  rescue StandardError, NotImplementedError => e
    abort "bench/builder.rb: #{c.label} raised #{e.class}: #{e.message}\n  #{e.backtrace.first(5).join("\n  ")}"
  end
  first_outputs[c.label] = out
  sql[c.label] = queries
end

# Before timing: the same data from everyone, the same bytes from Jetson.
reference = first_outputs.fetch(JBUILDER_LABEL)
abort "bench/builder.rb: Jbuilder did not return a String" unless reference.is_a?(String)
reference_data = JSON.parse(reference)
unless reference_data.is_a?(Array) && reference_data.size == 100 &&
       reference_data.all? { |h| h.keys == %w[id body commenter_names comments] && h["commenter_names"].size == 20 && h["comments"].size == 20 }
  abort "bench/builder.rb: Jbuilder's output is not 100 posts of {id, body, commenter_names[20], comments[20]}"
end
failures = []
byte_notes = {}
contenders.each do |c|
  next if c.label == JBUILDER_LABEL || c.floor?

  out = first_outputs[c.label]
  unless out.is_a?(String)
    failures << "#{c.label}: returned #{out.class}, not a String"
    next
  end
  next if out.b == reference.b

  diff = JetsonBench::Stats.diff_summary(out, reference)
  if c.compare == :bytes
    failures << "#{c.label}: output is not byte-identical to Jbuilder's: #{diff}"
    next
  end
  data = begin
    JSON.parse(out)
  rescue JSON::ParserError => e
    failures << "#{c.label}: output is not JSON (#{e.message[0, 80]})"
    next
  end
  if data == reference_data
    byte_notes[c.label] = diff
  else
    failures << "#{c.label}: output parsed is not equal to Jbuilder's parsed output: #{diff}"
  end
end

# The floor has no output; instead, what its null builder makes the template
# read, in order, must be what Jbuilder wrote: one traced run on a collection
# of its own (see BuilderBench::FloorTrace).
floor = contenders.find(&:floor?)
if floor
  traced = BuilderBench::NullBuilder.new
  class << traced
    prepend ::BuilderBench::FloorTrace # (BasicObject: top-level constants need ::)
  end
  BuilderBench::FloorTrace::LOG.clear
  compile_template.call(traced, load_posts)
  reads = BuilderBench::FloorTrace::LOG.dup
  BuilderBench::FloorTrace::LOG.clear
  expected_reads = [[:array!, reference_data.size]]
  reference_data.each do |h|
    expected_reads.push([:id, h["id"]], [:body, h["body"]], [:commenter_names, h["commenter_names"]], [:comments, :block])
    h["comments"].each { |c| expected_reads.push([:id, c["id"]], [:body, c["body"]]) }
  end
  if reads != expected_reads
    at = (0...[reads.size, expected_reads.size].max).find { |i| reads[i] != expected_reads[i] }
    failures << "#{floor.label}: the null builder's calls are not Jbuilder's output walked in order " \
                "(#{reads.size} vs #{expected_reads.size} calls; first difference at call #{at}: " \
                "got #{reads[at].inspect[0, 80]}, expected #{expected_reads[at].inspect[0, 80]})"
  end
end

sql.each do |label, queries|
  next if queries.empty?

  failures << "#{label}: #{queries.size} SQL queries during one call (the timed loop must run none): " \
              "#{queries.first(3).join(' | ')}"
end
unless failures.empty?
  abort "bench/builder.rb: not timing, outputs or SQL checks failed:\n  - #{failures.join("\n  - ")}"
end

puts "  posts: #{LOAD_QUERIES.size} SQL queries to load each collection (Post.includes(:comments, :commenters).order(:id).to_a); " \
     "0 SQL queries during one call of every contender"
puts "  output: #{reference.bytesize} bytes (Jbuilder's); every contender's output checked before timing: " \
     "#{contenders.count { |c| c.compare == :bytes && !c.floor? }} byte-identical required, the rest equal after JSON.parse" \
     "#{floor ? "; the floor (no output): its #{expected_reads.size} builder calls checked against Jbuilder's output" : ''}"

kase = JetsonBench::Case.new("posts collection", reference: -> { reference }, contenders: contenders)
runner = JetsonBench::Runner.new(options)
result = runner.run([kase]).first

# benchmark-memory's own report (memory_profiler's total_allocated_memsize of
# one call), next to the framework's bytes/call (the same measure over M calls).
bm_bytes = {}
if options.alloc
  report = Benchmark.memory(quiet: true) do |x|
    contenders.each { |c| x.report(c.label) { c.once.call } }
  end
  report.entries.each { |e| bm_bytes[e.label] = e.measurement.memory.allocated }
end

# ---------------------------------------------------------------------------
# Summary

f = JetsonBench::Format
entry = ->(label) { result.entries.find { |e| e.label == label } }
jbuilder = entry.call(JBUILDER_LABEL)
peers = result.entries.select { |e| e.peer? && e.ran? }
best_peer = peers.max_by(&:ips)
panko = entry.call("panko")
panko = nil unless panko&.ran?
ratio = ->(a, b) { f.ratio(*JetsonBench::Stats.ratio(a, b)) }
bytes_ratio = ->(a, b) { a&.bytes && b&.bytes&.positive? ? format("%.3f×", a.bytes / b.bytes) : "-" }

all = JetsonBench::Table.new(["contender", "role", "i/s", "±", "÷ Jbuilder", "objs/call", "bytes/call",
                              "benchmark-memory", "output", "SQL"])
result.entries.each do |e|
  check = if e.label == JBUILDER_LABEL then "reference"
          elsif e.floor? then "none (floor)"
          elsif e.check == :ok then "identical"
          elsif e.check == :note then "equal data"
          else e.check.to_s
          end
  all << [e.label + (e == best_peer ? " (fastest peer)" : ""), e.role.to_s, f.ips(e.ips), f.percent(e.error_pct),
          e == jbuilder ? "1" : ratio.call(e, jbuilder), f.objects(e.objects), f.bytes(e.bytes),
          f.bytes(bm_bytes[e.label]), check, sql[e.label].size.to_s]
end

jetson = JetsonBench::Table.new(["Jetson", "i/s", "÷ Jbuilder", "÷ fastest peer (#{best_peer&.label || '-'})", "÷ panko",
                                 "objs/call", "bytes/call", "bytes ÷ Jbuilder's"])
result.subjects.each do |s|
  jetson << [s.label, f.ips(s.ips), ratio.call(s, jbuilder), ratio.call(s, best_peer), ratio.call(s, panko),
             f.objects(s.objects), f.bytes(s.bytes), bytes_ratio.call(s, jbuilder)]
end

# The floor: the template alone. Its i/s ÷ Jbuilder's bounds every builder's
# ratio to Jbuilder; its bytes plus the output String's bound every builder's
# allocated bytes (a builder must at least run the template and return the
# output). Only the floor's own ratio is computed from it.
floor_entry = result.entries.find { |e| e.floor? && e.ran? }
floor_lines = []
if floor_entry
  # The smallest output a builder can return: a String of exactly the output's
  # bytes (slot + bytes + terminator, as memory_profiler counts a String).
  output_bytes = ObjectSpace.memsize_of(String.new(capacity: reference.bytesize) << reference)
  floor_lines << "#{FLOOR_LABEL}: #{f.ips(floor_entry.ips)} i/s ± #{f.percent(floor_entry.error_pct)}, " \
                 "#{f.objects(floor_entry.objects)} objs/call, #{f.bytes(floor_entry.bytes)}/call " \
                 "(#{floor_entry.bytes ? floor_entry.bytes.round : '-'} B; Jbuilder: #{f.ips(jbuilder.ips)} i/s, " \
                 "#{f.objects(jbuilder.objects)} objs/call, #{f.bytes(jbuilder.bytes)}/call)"
  floor_lines << "highest possible ratio against Jbuilder: floor i/s ÷ Jbuilder i/s = " \
                 "#{ratio.call(floor_entry, jbuilder)} (median of #{floor_entry.rounds.size} paired rounds ± half " \
                 "their interquartile range)" +
                 (result.subjects.empty? ? "" : "; for comparison, ÷ Jbuilder: " +
                   result.subjects.map { |s| "#{s.label} #{ratio.call(s, jbuilder)}" }.join(", "))
  floor_lines << if floor_entry.bytes && jbuilder.bytes&.positive?
                   least = floor_entry.bytes + output_bytes
                   "lowest possible bytes against Jbuilder: template-only bytes + output bytes = " \
                     "#{floor_entry.bytes.round} + #{output_bytes} = #{least.round} B (#{f.bytes(least)}) = " \
                     "#{format('%.3f', least / jbuilder.bytes)}× Jbuilder's #{jbuilder.bytes.round} B " \
                     "(output bytes: ObjectSpace.memsize_of of a String holding exactly the #{reference.bytesize}-byte output)"
                 else
                   "lowest possible bytes against Jbuilder: - (no allocation figures; --no-alloc)"
                 end
end

notes = [
  "Data: #{LOAD_QUERIES.size} SQL queries load a collection of 100 posts with Post.includes(:comments, :commenters); " \
  "every contender has its own collection; SQL counted with ActiveSupport::Notifications \"sql.active_record\" " \
  "during one call of each contender: all 0 (checked before timing, else no timing).",
  "Output: #{reference.bytesize} bytes, an array of 100 {id, body, commenter_names[20], comments[20 × {id, body}]}. " \
  "Jetson's outputs must be byte-identical to Jbuilder's, the peers' equal to it after JSON.parse (checked before " \
  "timing, else no timing).",
  "Ratios: i/s ÷ i/s, median of the per-round ratios ± half their interquartile range (rounds interleave the " \
  "contenders, order rotated). Fastest peer: the fastest contender other than Jbuilder, Jetson's and the floor.",
  "objs/call: GC.stat(:total_allocated_objects) per call. bytes/call: memory_profiler's total_allocated_memsize per " \
  "call over several calls; benchmark-memory: its allocated memsize for one call (the same measure through " \
  "benchmark-memory). Memory a C extension mallocs and frees itself is in neither.",
  *contenders.flat_map(&:notes),
  *byte_notes.map { |label, diff| "#{label}: equal data, bytes differ from Jbuilder's: #{diff}" },
  *SKIPPED.map { |s| "Skipped: #{s}" }
]

puts
puts "=" * 78
puts "Summary"
puts all.to_console
puts
if result.subjects.empty?
  puts "(no Jetson contender ran)"
else
  puts jetson.to_console
end
unless floor_lines.empty?
  puts
  puts "Floor (the template alone, no JSON work)"
  floor_lines.each { |l| puts "  #{l}" }
end
puts
notes.each { |n| puts "- #{n}" }

if options.write
  path = JetsonBench.results_path(options.oj? ? "builder-oj.md" : "builder.md")
  command = "bundle exec ruby #{JetsonBench::Environment.yjit? ? '--yjit ' : ''}bench/builder.rb #{ARGV.join(' ')}".strip
  md = +"# Jetson builder benchmark (templates and serializers)\n\nCommand: `#{command}`\n\n"
  FACTS.each { |k, v| md << "- **#{k}**: #{v}\n" }
  md << "\n## Jetson\n\n"
  md << (result.subjects.empty? ? "No Jetson contender ran (see Skipped below)." : jetson.to_markdown) << "\n\n"
  unless floor_lines.empty?
    md << "## Floor: the template alone\n\n"
    md << "The same template on a null builder that writes nothing (see bench/README.md): no builder running " \
          "this template can beat its i/s or allocate less than its bytes plus the output's.\n\n"
    floor_lines.each { |l| md << "- #{l}\n" }
    md << "\n"
  end
  md << "## All contenders\n\n#{all.to_markdown}\n\n"
  notes.each { |n| md << "- #{n}\n" }
  tmp = "#{path}.tmp"
  File.write(tmp, md)
  File.rename(tmp, path)
  puts "\nwrote #{path}"
end
