# frozen_string_literal: true

require "test_helper"
require "json"
require "support/record_matrix"
require "support/oj_child"

# Records, relations and association proxies under Oj's Rails encoder
# (Oj.optimize_rails), written natively by Jetson::OjEncoder and
# jetson/jbuilder's target! (ext/jetson/rails/oj_mode.c, record.c), against
# Oj itself: every query of the record matrix with its options, on every
# database of the run, in each of Oj's settings the Oj tests cover. Oj
# replaces ActiveSupport's encoder and JSON's methods for good, so the
# comparison runs in a child process, which reads the parent's rows.
class RecordsOjNativeTest < Minitest::Test
  include OjChild

  CHILD = <<~'RUBY'
    require "support/oj_child/records"
    require "support/self_changing_note"
    Oj.optimize_rails
    adapters = ARGV[0].split(",")

    require "support/oj_call_count" # CountOjCalls.calls: every value handed to Oj

    def outcome
      [:ok, yield]
    rescue StandardError, NoMemoryError => e
      [:raises, e.class.name, e.message[0, 200]]
    end

    def native_records = Jetson::Rails.diagnostics[:records][:native]

    # Jetson::OjEncoder (to_json and render json:, after the takeover) and
    # Jbuilder's target! (a value under a key), each against Oj's encoder on
    # the same value built anew; counted into r, a difference named by
    # `where` (adapter, zone, query).
    def compare(r, where, build, options)
      native_before = native_records
      calls_before = CountOjCalls.calls
      ours = outcome { Jetson::OjEncoder.new(options).encode(build.call) }
      r["native"] += native_records - native_before
      r["oj_calls"] += CountOjCalls.calls - calls_before
      oj = outcome { Oj::Rails::Encoder.new(options).encode(build.call) }
      pairs = [[ours, oj, options]]
      if options.nil?
        pairs << [outcome { Jbuilder.new { |json| json.v build.call }.target! },
                  outcome { { "v" => build.call }.to_json }, :jbuilder]
      end
      pairs.each do |mine, theirs, how|
        r["compared"] += 1
        next if mine == theirs

        r["differ"] += 1
        r["diffs"] << [*where, how.inspect, mine.inspect[0, 400], theirs.inspect[0, 400]] if r["diffs"].size < 4
      end
    end

    worlds = adapters.to_h { |adapter| [adapter, RecordMatrix.world(adapter, insert: false)] }
    OjArray = Class.new(Array)
    OjHash = Class.new(Hash)
    # Models an app writes that Oj leaves to their own Ruby, or not: an
    # overridden attributes (which ActiveRecord's serializable_hash does not
    # read), an as_json of the model's own.
    worlds.each_value do |world|
      base = world.model(:comment).superclass
      world.namespace.const_set(:OwnAttributes, Class.new(base) do
        self.table_name = "comments"
        def attributes = { "id" => nil, "body" => nil }
        # A methods: value whose Array as_json walks element by element.
        def mixed = [1.5, nil, :sym, Time.utc(2024, 1, 2, 3, 4, 5, 678_901), [BigDecimal("1.10"), { b: 0.1 + 0.2 }],
                     "x<\u2028>", 2**70, Date.new(2024, 2, 29), [], Float::NAN]
      end)
      world.namespace.const_set(:OwnAsJson, Class.new(base) do
        self.table_name = "comments"
        def as_json(options = nil) = { "own" => id, "options" => options&.keys&.map(&:to_s) }
      end)
      # A body whose as_json changes later attributes of its record: the
      # record's Hash was built before (serializable_hash, then as_json).
      world.namespace.const_set(:NotedComment, Class.new(base) do
        self.table_name = "comments"
        SelfChangingNote.install(self)
      end)
    end
    extra_queries = {
      "own attributes" => [->(w) { w.namespace::OwnAttributes.order(:id).to_a },
                           [nil, { only: :body }, { only: :id, methods: :mixed }]],
      "own as_json" => [->(w) { w.namespace::OwnAsJson.order(:id).limit(3) }, [nil, { only: :body }]],
      "as_json changes its record" => [->(w) { w.namespace::NotedComment.order(:id).limit(4).to_a },
                                       [nil, { except: :article_id }, { only: :body, methods: :noted_at }]],
      "records in a Hash" => [->(w) { { a: w.model(:comment).order(:id).limit(3).to_a, "b" => [w.model(:author).first] } },
                              [nil, { escape: false }]],
      "proxies in Jbuilder style" => [->(w) { w.model(:article).includes(:comments).order(:id).map(&:comments) }, [nil]],
      # Oj's key filter (only:, except:) on the Hashes it walks outside
      # as_json results, a subclass's too, and not inside a record's.
      "filtered containers" => [lambda { |w|
        { "id" => 1, "x" => OjArray[{ "id" => 2, "y" => 3, "body" => "b" }, w.model(:comment).first],
          "body" => w.model(:comment).limit(2), :y => OjHash["id" => 4, "y" => 5] }
      }, [{ only: %i[id x body] }, { except: [:y] }, { only: "body" }]]
    }

    # Oj's settings: each a change on top of the ones before. The first runs
    # every query on every database, in combinations of ActiveSupport's
    # settings (escape_html_entities_in_json on and off, time precisions,
    # the legacy time format, zones), the others a few queries in one
    # combination each, on the first database.
    variants = {
      "Oj.optimize_rails" => -> {},
      "Oj::Rails.deoptimize(Float)" => -> { Oj::Rails.deoptimize(Float) },
      "Oj::Rails.deoptimize(Hash, Array)" => -> { Oj::Rails.deoptimize(Hash, Array) },
      "bigdecimal_as_decimal: true" => -> { Oj::Rails.optimize; Oj.default_options = { bigdecimal_as_decimal: true } },
      "bigdecimal_as_decimal: false" => -> { Oj.default_options = { bigdecimal_as_decimal: false } },
      "Oj::Rails.optimize(Comment, Author)" => lambda {
        worlds.each_value { |w| Oj::Rails.optimize(w.model(:comment), w.model(:author)) }
      },
      "Oj::Rails.deoptimize(Time, TimeWithZone, BigDecimal)" => lambda {
        worlds.each_value { |w| Oj::Rails.deoptimize(w.model(:comment), w.model(:author)) }
        Oj::Rails.deoptimize(Time, ActiveSupport::TimeWithZone, BigDecimal)
      }
    }
    all_combos = RecordMatrix.combos
    some = ["records", "relation", "single", "include", "belongs_to", "proxies", "random model", "in a Hash",
            "select aliases", "own attributes", "own as_json", "as_json changes its record", "records in a Hash",
            "filtered containers"]
    report = {}
    variants.each_with_index do |(variant, change), index|
      change.call
      # Oj's settings do not depend on the database: the other variants run on the first.
      variant_worlds = index.zero? ? worlds : worlds.first(1).to_h
      r = report[variant] = { "compared" => 0, "differ" => 0, "diffs" => [], "native" => 0, "oj_calls" => 0,
                              "flags" => Jetson::Rails::OjRules.flags, "adapters" => variant_worlds.keys }
      variant_worlds.each_with_index do |(adapter, world), world_index|
        # The first database in the first combinations of settings, the others in one.
        combos = if index.positive? then [all_combos[index % all_combos.size]]
                 elsif world_index.zero? then all_combos.first(Integer(ENV.fetch("OJ_RECORD_COMBOS", "2")))
                 else [all_combos[world_index % all_combos.size]]
                 end
        models = world.models.fetch(true)
        queries = RecordMatrix::QUERIES.transform_values { |(build, options)| [-> { build.call(models) }, options] }
        extra_queries.each { |name, (build, options)| queries[name] = [-> { build.call(world) }, options] }
        queries.select! { |name, _| some.include?(name) } unless index.zero?
        combos.each do |combo|
          RecordMatrix.with_combo(combo) do
            queries.each do |name, (build, option_sets)|
              option_sets.each { |options| compare(r, [adapter, combo[:zone], name], build, options) }
            end
          end
        end
      end
    end
    puts JSON.generate(report)
  RUBY

  def test_records_under_ojs_rails_encoder
    adapters = RecordMatrix.databases.select { |_, config| config.is_a?(Hash) }.map(&:first)
    adapters.each { |adapter| RecordMatrix.world(adapter) } # the rows
    output = records_child(CHILD, adapters.join(","))
    report = JSON.parse(output.lines.last)
    assert_equal 7, report.size
    assert_equal adapters, report["Oj.optimize_rails"]["adapters"]
    report.each do |variant, r|
      assert_operator r["compared"], :>, 30 * r["adapters"].size, variant
      assert_equal 0, r["differ"], "#{variant}: Jetson and Oj differ on #{r["differ"]} of #{r["compared"]}: " \
                                   "#{r["diffs"].inspect}"
      assert r["flags"], "#{variant}: Oj's encoder not written natively"
      # The records went through the attribute sets, not through Oj.
      assert_operator r["native"], :>, 200 * r["adapters"].size, variant
    end
    default = report["Oj.optimize_rails"]
    assert_operator default["native"], :>, 1000 * adapters.size
    # What still went to Oj: BigDecimals and Ranges in as_json results, the
    # models' own as_json, records under include_root_in_json, Hashes under
    # only:/except:. Fewer calls than records written natively.
    assert_operator default["oj_calls"] * 3, :<, default["native"], default.inspect[0, 300]
    # Records of a class Oj::Rails.optimize names are Oj's.
    assert_operator report["Oj::Rails.optimize(Comment, Author)"]["oj_calls"], :>, report["Oj::Rails.deoptimize(Float)"]["oj_calls"]
  end
end
