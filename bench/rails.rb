# frozen_string_literal: true

# Rails mode: Jetson::RailsEncoder vs ActiveSupport's own encoder vs Oj's
# optimized Rails mode, on ActiveRecord records (the collection benchmark of
# the serializer projects) and on a Hash-and-Time-heavy API payload.
#
#   bundle exec ruby --yjit bench/rails.rb [--quick] [case-name-filter ...]
#
# Every contender is ActiveSupport's own entry point (`to_json`, which
# `render json:` calls) with a different ActiveSupport.json_encoder. See
# bench/README.md for how rounds, ratios and allocations are measured.

require_relative "support/setup"
require_relative "support/rails_stock"
require "jetson/rails"
require_relative "../kit/collection"

options = JetsonBench::Options.parse_or_usage("bench/rails.rb")

# "Stock" is the app's Rails: ActiveSupport's own encoder under the JSON
# settings of its version's load_defaults (bench/support/rails_stock.rb).
# Oj.optimize_rails also replaces JSON.generate (Oj.mimic_JSON), which
# JSONGemEncoder calls: the stock contender keeps the json gem's.
# (JSONGemCoderEncoder writes through JSON::Coder, which Oj leaves alone.)
JetsonBench::RailsStock.apply_json_defaults!
JSON_GEM_GENERATE = JSON.method(:generate)
StockEncoder =
  if JetsonBench::RailsStock::ENCODER <= ActiveSupport::JSON::Encoding::JSONGemEncoder
    Class.new(JetsonBench::RailsStock::ENCODER) do
      private

      def stringify(jsonified) = JSON_GEM_GENERATE.call(jsonified)
    end
  else
    JetsonBench::RailsStock::ENCODER
  end
STOCK_NOTE = "#{JetsonBench::RailsStock.describe} (as_json pass, json #{JSON::VERSION}, escaping gsubs); " \
             "JSONGemEncoder is kept on the json gem's JSON.generate after Oj.optimize_rails replaced it."
OJ_NOTE = "Oj #{defined?(Oj::VERSION) ? Oj::VERSION : '?'} after Oj.optimize_rails (Oj::Rails::Encoder as " \
          "ActiveSupport.json_encoder, every class optimized); compared after JSON.parse."

Kit::Collection.seed(posts: 100)
POSTS = Post.includes(:comments, :commenters).order(:id).to_a
COLLECTION_OPTIONS = { only: [:id, :body], methods: :commenter_names,
                       include: { comments: { only: [:id, :body] } } }.freeze

Time.zone = "Tokyo"
BASE = Time.zone.local(2024, 5, 6, 7, 8, 9)
EVENTS = {
  "data" => Array.new(200) do |i|
    { "id" => i, "type" => "event",
      "attributes" => { "title" => "Event #{i} & friends", "starts_at" => BASE + (i * 3600),
                        "ends_at" => BASE + (i * 3600) + 5400, "published_at" => Time.utc(2024, 1, 1, 12) + (i * 61),
                        "day" => Date.new(2024, 5, 1) + i, "score" => i / 8.0, "tags" => %w[music outdoor],
                        "status" => :scheduled, "sold_out" => i.odd?, "notes" => nil,
                        "venue" => { "name" => "Hall #{i % 7}", "city" => "Tokyo", "capacity" => 100 + i } } }
  end,
  "meta" => { "count" => 200, "generated_at" => BASE, "zone" => "Asia/Tokyo" }
}.freeze

# render json: passes the view's options to to_json, so the top-level as_json
# gets options (and ActiveSupport's as_json pass walks the whole tree).
RENDER_OPTIONS = { prefixes: ["events"], template: "index", layout: false }.freeze

def contender(label, role, encoder, compare: :bytes, note: nil, &call)
  JetsonBench::Contender.new(label, role: role, compare: compare, note: note, callable: lambda {
    ActiveSupport.json_encoder = encoder
    call.call
  })
end

def rails_case(name, &call)
  oj = defined?(Oj::Rails::Encoder) ? Oj::Rails::Encoder : nil
  contenders = [contender("Jetson::RailsEncoder", :subject, Jetson::RailsEncoder, &call),
                contender("ActiveSupport (stock)", :peer, StockEncoder, note: STOCK_NOTE, &call)]
  contenders << contender("Oj optimize_rails", :peer, oj, compare: :parsed, note: OJ_NOTE, &call) if oj
  reference = lambda do
    ActiveSupport.json_encoder = StockEncoder
    call.call
  end
  JetsonBench::Case.new(name, reference: reference, contenders: contenders)
end

CASES = {
  "posts.to_json(include:, methods:)" => -> { rails_case("posts.to_json(include:, methods:)") { POSTS.to_json(COLLECTION_OPTIONS) } },
  "Hash and Time payload .to_json" => -> { rails_case("Hash and Time payload .to_json") { EVENTS.to_json } },
  "Hash and Time payload, render json:" => lambda {
    rails_case("Hash and Time payload, render json:") { EVENTS.to_json(RENDER_OPTIONS) }
  }
}.freeze

if options.list
  puts CASES.keys
  exit
end
selected = CASES.select { |name, _| options.match?(name) }
abort "no case matches #{options.filters.inspect}; cases: #{CASES.keys.join(', ')}" if selected.empty?

Oj.optimize_rails if defined?(Oj)

puts "Jetson Rails-mode benchmark — #{options.describe}"
JetsonBench::Environment.facts(options).each { |k, v| puts "  #{k}: #{v}" }
puts "  activesupport: #{ActiveSupport.version}, activerecord: #{ActiveRecord.version}, sqlite3: #{SQLite3::VERSION}"

runner = JetsonBench::Runner.new(options)
selected.each_value { |build| runner.run([build.call]) }
results = runner.results
ActiveSupport.json_encoder = JetsonBench::RailsStock::ENCODER

headers = ["case", "Jetson i/s", "stock i/s", "Oj i/s", "Jetson / stock", "Jetson / Oj", "objs/call Jetson",
           "stock", "Oj", "bytes/call Jetson", "stock", "Oj"]
table = JetsonBench::Table.new(headers)
results.each do |res|
  jetson, stock, oj = %w[Jetson ActiveSupport Oj].map { |prefix| res.entries.find { |e| e.label.start_with?(prefix) } }
  f = JetsonBench::Format
  table << [res.name + (res.warnings.any? ? " (!)" : ""), f.ips(jetson&.ips), f.ips(stock&.ips), f.ips(oj&.ips),
            f.ratio(*JetsonBench::Stats.ratio(jetson, stock)), f.ratio(*JetsonBench::Stats.ratio(jetson, oj)),
            f.objects(jetson&.objects), f.objects(stock&.objects), f.objects(oj&.objects),
            f.bytes(jetson&.bytes), f.bytes(stock&.bytes), f.bytes(oj&.bytes)]
end
notes = [STOCK_NOTE, OJ_NOTE,
         "Ratios: median of the per-round ratios ± half their interquartile range (rounds interleave the contenders).",
         "posts: #{POSTS.size} ActiveRecord posts from sqlite3 :memory: with comments and commenters preloaded; " \
         "to_json(#{COLLECTION_OPTIONS.inspect}).",
         "Hash and Time payload: 200 events, each with 3 TimeWithZone/Time values, a Date, a Float, Symbols and " \
         "nested Hashes; render json: = to_json(#{RENDER_OPTIONS.inspect})."]
puts
puts "=" * 78
puts "Summary"
puts table.to_console
notes.each { |n| puts "- #{n}" }

if options.write
  path = JetsonBench.results_path("rails.md")
  command = "bundle exec ruby #{JetsonBench::Environment.yjit? ? '--yjit ' : ''}bench/rails.rb #{ARGV.join(' ')}".strip
  md = +"# Jetson Rails-mode benchmark\n\nCommand: `#{command}`\n\n"
  JetsonBench::Environment.facts(options).each { |k, v| md << "- **#{k}**: #{v}\n" }
  md << "- **activesupport / activerecord / sqlite3**: #{ActiveSupport.version} / #{ActiveRecord.version} / " \
        "#{SQLite3::VERSION}\n\n## Summary\n\n#{table.to_markdown}\n\n"
  notes.each { |n| md << "- #{n}\n" }
  md << "\n## Per case\n\n"
  results.each { |res| md << "### #{res.name}\n\n#{JetsonBench::Report.detail(res).to_markdown}\n\n" }
  File.write(path, md)
  puts "\nwrote #{path}"
end
