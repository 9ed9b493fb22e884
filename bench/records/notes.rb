# frozen_string_literal: true

require_relative "../support/rails_stock"

module RecordsBench
  module_function

  # The notes under the tables: what was run, how it is measured, and what
  # the checks found on each database.
  def explanations(options, runs)
    info = runs.first.infos["jetson"] || runs.first.infos.values.first
    gems = info[:gems]
    serializers = info[:serializers] || {}
    b_ran = runs.any? { |r| r.cases.any? { |k| k.group == "B" } }
    [
      "Data: 100 posts, 200 users, 2,000 comments (20 per post by its 2 users), the values of " \
      "kit/collection.rb with fixed ids and timestamps (microseconds included), written by " \
      "Kit::Collection.insert_fixed! into each database (SQLite: a file in a temporary directory; PostgreSQL: a " \
      "server started for the run). Time zone aware attributes and Time.zone UTC, as a Rails app: timestamps are " \
      "TimeWithZone. Models: kit/collection.rb's Post, Comment, User, plus Post#to_builder.",
      "fresh: every call loads the records (the query is part of the call) and encodes them. loaded: the collection " \
      "is loaded and every attribute of every loaded record read before the slice (the slice reuses it; each " \
      "contender has its own). Floor (fresh only): the same query loading the same records (to_a), nothing read; " \
      "timed in the same rounds. Loaded-once cases have no floor: their time above floor is their whole time.",
      (if OJ
         "A (--oj): the worlds called Oj.optimize_rails (oj #{gems['oj']}); every contender is `to_json` with " \
           "ActiveSupport.json_encoder set to Oj::Rails::Encoder or to Jetson::OjEncoder (what the Railtie installs in " \
           "its place); Jetson's output must be byte-identical to Oj's (else the run aborts). Shapes: "
       else
         "A: every contender is `to_json` with ActiveSupport.json_encoder set to the app's Rails stock encoder " \
           "(#{JetsonBench::RailsStock.describe}; json #{gems['json']}) or Jetson::RailsEncoder; Jetson's output must be " \
           "byte-identical to the stock encoder's (else the run aborts). Shapes: "
       end) +
      A_SHAPES.map { |id, title| "#{id} #{title}" }.join("; ") + ".",
      *(b_ran ? [
        "B: #{B_TITLE}. Jbuilder forms: " + B_FORMS.map { |f, code| "#{f}: `#{format(code, 'posts')}`" }.join("; ") +
        " (Post#to_builder = `Jbuilder.new { |j| j.(self, #{B_FIELDS}) }`). The jbuilder gem " \
        "(#{gems['jbuilder'] || 'its world'}) runs them in the jbuilder world, jetson/jbuilder in the jetson world (ActiveSupport's " \
        "encoder left in place); each jetson/jbuilder form must be byte-identical to the gem's same form (else the run " \
        "aborts). to_json: `posts.to_json(#{TO_JSON_OPTIONS})`, Jetson's byte-identical to the stock encoder's.",
        "Serializers (jetson world, stock encoder in place; defaults): panko_serializer #{serializers['panko_serializer']} " \
        "(Panko::ArraySerializer.new(posts, each_serializer:).to_json, a method field for commenter_names, has_many " \
        "comments with the six attributes; Oj::StringWriter in :rails mode), alba #{serializers['alba']} (attributes and " \
        "`many`; backend #{serializers['alba backend']}: JSON.generate), blueprinter #{serializers['blueprinter']} " \
        "(identifier, fields, association; sort_fields_by :definition; generator #{serializers['blueprinter generator']}). " \
        "Compared with the jbuilder gem's extract! after JSON.parse. alba and blueprinter write timestamps as " \
        "Time#to_s (\"2024-01-01 00:00:10 UTC\"): JSON.generate calls TimeWithZone#to_json with a JSON::State, which " \
        "ActiveSupport passes to json's generic to_json (to_s), where as_json gives ISO 8601 with milliseconds; " \
        "matching it would take a method per timestamp attribute. panko writes the same document plus a final newline.",
        "panko casts every attribute from its value before type cast on every call (values already read do not help " \
        "it): its C timestamp cast takes Strings (SQLite's), while the postgresql adapter hands over Time objects " \
        "(pg's decoders), which panko passes to ActiveRecord's deserialize (a TimeWithZone per timestamp, then Oj's " \
        "Rails-mode writing of it): hence its PostgreSQL figures."
      ] : []),
      "Slices: GC.start, calls for --warmup (#{options.warmup} s), GC.start, whole calls until --time " \
      "(#{options.time} s) has passed; i/s = calls ÷ elapsed; ms = 1000 ÷ the median round's i/s. Before round 1 every " \
      "contender gets #{options.quick ? 0.1 : 0.5} s of untimed calls (YJIT). #{options.rounds} rounds; a round runs " \
      "every contender of every case once, one slice at a time, worlds and contenders in an order rotated each round.",
      "Ratios: computed per round, median ± half the interquartile range of the rounds, truncated to two decimals. " \
      "i/s ratio: a's i/s ÷ b's. Above floor: per round, ms per call − the floor's ms in the same round (B: the " \
      "floor of the contender's own world, see the world check); the ratio is b's time above floor ÷ a's (stock's ÷ Jetson's for " \
      "A), so 5× means Jetson adds a fifth of the time the stock encoder adds to the load. A round where a's time is " \
      "at or under the floor has no such ratio; \"(k/n rounds)\" says how many rounds had one.",
      "objs/call: GC.stat(:total_allocated_objects) per call (fresh: the load's objects included; floor: the load's " \
      "alone). GCs/1k calls: collections during the timed slices. SQL: queries in one call (fresh: the floor's; " \
      "loaded: none, checked).",
      *runs.flat_map { |r| r.notes.map { |(label, text), names| "#{r.db}: #{label} (#{names.join(', ')}): #{text}" } }
    ]
  end
end
