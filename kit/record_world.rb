# frozen_string_literal: true

require "active_record"
require "securerandom"

module Kit
  # A database of random rows for the record differential tests
  # (test/records/): the same schema on each adapter (sqlite3, postgresql,
  # mysql2, trilogy), one column of every type ActiveRecord casts natively in
  # Jetson and the types it must leave to the reader (serialized, store
  # accessors, custom types, overridden and aliased readers), with seeded
  # random values and the edges of each type (NULLs, extremes, time zone
  # transitions, every seconds precision), plus rows written in raw SQL with
  # values ActiveRecord itself would not write (a string in an integer column,
  # odd time formats, JSON text with duplicate keys).
  #
  # A world is a plain description (RecordWorld#spec, Marshal-able): a child
  # process running the jbuilder gem rebuilds the same models from it and reads
  # the same rows.
  class RecordWorld
    attr_reader :adapter, :config, :seed, :models

    # The zones of the matrix: UTC, one without daylight saving time far from
    # UTC, and one that changes its offset (the rows hold instants on both
    # sides of its 2024 transitions).
    ZONES = ["UTC", "Asia/Tokyo", "America/New_York"].freeze
    DST_INSTANTS = [Time.utc(2024, 3, 10, 6, 59, 59), Time.utc(2024, 3, 10, 7, 0, 0), Time.utc(2024, 3, 10, 7, 30, 1),
                    Time.utc(2024, 11, 3, 5, 59, 59), Time.utc(2024, 11, 3, 6, 0, 0), Time.utc(2024, 11, 3, 6, 30, 0)].freeze

    def self.mysql?(adapter) = %w[mysql2 trilogy].include?(adapter)

    def initialize(adapter:, config:, seed:)
      @adapter = adapter
      @config = config
      @seed = seed
      @rng = Random.new(seed)
    end

    def spec = { adapter: adapter, config: config, seed: seed }

    def postgresql? = adapter == "postgresql"
    def mysql? = self.class.mysql?(adapter)
    def sqlite? = adapter == "sqlite3"

    # The abstract class every model of this world inherits: its own
    # connection, so that worlds on other databases (and the tests' sqlite3
    # ActiveRecord::Base) are untouched.
    def base
      @base ||= begin
        klass = Class.new(ActiveRecord::Base) { self.abstract_class = true }
        namespace.const_set(:Base, klass)
        klass.establish_connection(config)
        klass
      end
    end

    def namespace
      @namespace ||= begin
        name = "World#{adapter.capitalize}#{seed}"
        Object.send(:remove_const, name) if Object.const_defined?(name, false)
        Object.const_set(name, Module.new)
      end
    end

    def connection = base.connection

    # --- schema --------------------------------------------------------------

    def create_tables!
      c = connection
      %w[comments articles samples authors randoms].each { |t| c.drop_table(t, if_exists: true) }
      create_random_table!
      pg = postgresql?
      c.create_table(:authors) do |t|
        t.string :name
        t.string :email
        t.date :born
        t.float :rating
        t.boolean :active
        t.integer :role
        t.timestamps precision: 6
      end
      c.create_table(:articles) do |t|
        t.string :type
        t.references :author
        t.string :title
        t.text :body
        t.bigint :views
        t.decimal :price, precision: 10, scale: 2
        t.datetime :published_at, precision: 0
        t.timestamps precision: 6
      end
      c.create_table(:comments) do |t|
        t.references :article
        t.text :body
        t.boolean :approved
        t.timestamps precision: 3
      end
      c.create_table(:samples) do |t|
        t.string :title
        t.text :body
        t.integer :count
        t.bigint :big
        t.float :ratio
        t.decimal :price, precision: 12, scale: 4
        t.decimal :amount, precision: 20, scale: 0
        t.decimal :plain_decimal
        t.boolean :flag
        t.date :day
        t.datetime :at0, precision: 0
        t.datetime :at3, precision: 3
        t.datetime :at6, precision: 6
        t.datetime :at_default
        t.time :clock, precision: (mysql? ? 6 : nil)
        t.json :data
        t.integer :status
        t.string :kind
        t.text :notes # serialized
        t.json :prefs # store_accessor
        t.string :code # a custom type
        t.string :shout # an overridden reader
        t.string :legacy # aliased
        t.datetime :local_at, precision: 6 # skip_time_zone_conversion_for_attributes
        if pg
          t.uuid :uid
          t.jsonb :doc
          t.timestamptz :tz_at
          t.column :naive_json, :json
        end
        t.timestamps precision: 6
      end
    end

    # A table of seeded random columns: the types of the others with random
    # precisions, scales, limits and defaults (the spec is the seed: a child
    # process draws the same).
    RANDOM_TYPES = [
      [:string, -> (r) { { limit: [nil, 20, 255].sample(random: r) } }],
      [:text, ->(_) { {} }], [:integer, ->(r) { { limit: [nil, 2, 4, 8].sample(random: r) } }], [:bigint, ->(_) { {} }],
      [:float, ->(_) { {} }], [:boolean, ->(_) { {} }], [:date, ->(_) { {} }], [:json, ->(_) { {} }],
      [:decimal, ->(r) { p = r.rand(4..18); { precision: p, scale: r.rand(0..[p - 1, 6].min) } }],
      [:datetime, ->(r) { { precision: [nil, 0, 1, 3, 5, 6].sample(random: r) } }],
      [:time, ->(r) { { precision: [nil, 0, 3, 6].sample(random: r) } }]
    ].freeze

    def random_columns
      @random_columns ||= begin
        r = Random.new(seed * 7 + 1)
        Array.new(r.rand(6..12)) do |i|
          type, options = RANDOM_TYPES.sample(random: r)
          options = options.call(r)
          options[:precision] = 6 if mysql? && type == :time && options[:precision].nil?
          ["r#{i}_#{type}", type, options.compact]
        end
      end
    end

    def create_random_table!
      columns = random_columns
      connection.create_table(:randoms) do |t|
        columns.each { |name, type, options| t.public_send(type, name, **options) }
        t.timestamps precision: 6
      end
    end

    def random_value(type, options)
      case type
      when :string, :text then string(long: type == :text)[0, options[:limit] || 1000]
      when :integer then integer({ 2 => 15, 4 => 31, 8 => 63 }.fetch(options[:limit], 31))
      when :bigint then integer(63)
      when :float then float
      when :boolean then bool
      when :date then date
      when :json then json_value
      when :decimal then decimal(options[:precision], options[:scale])
      when :datetime then instant
      when :time then Time.utc(2000, 1, 1, @rng.rand(24), @rng.rand(60), @rng.rand(60) + (@rng.rand(10**6) / 1_000_000r))
      end
    end

    # --- models ----------------------------------------------------------------

    # A custom type: its cast is the app's, so the reader runs.
    class UpcaseType < ActiveModel::Type::String
      def cast_value(value) = super&.upcase
      def deserialize(value) = value&.reverse
    end

    # Two sets of models on the same tables: time zone aware and not.
    def define_models!
      @models = {}
      [true, false].each { |aware| @models[aware] = define_model_set(aware) }
      @models
    end

    def model(name, aware: true) = @models.fetch(aware).fetch(name)

    # Each class is named (const_set) before its body runs: associations find
    # each other by name.
    def define_model_set(aware)
      mysql = mysql?
      mod = Module.new
      namespace.const_set(aware ? :Aware : :Naive, mod)
      set_base = mod.const_set(:Record, Class.new(base))
      set_base.class_eval do
        self.abstract_class = true
        self.time_zone_aware_attributes = aware
        # "Review", found by both sets of models on the same rows.
        self.store_full_class_name = false
      end
      author = mod.const_set(:Author, Class.new(set_base))
      article = mod.const_set(:Article, Class.new(set_base))
      news = mod.const_set(:News, Class.new(article))
      review = mod.const_set(:Review, Class.new(article))
      comment = mod.const_set(:Comment, Class.new(set_base))
      sample = mod.const_set(:Sample, Class.new(set_base))
      random = mod.const_set(:Random, Class.new(set_base))
      author.class_eval do
        self.table_name = "authors"
        enum :role, { reader: 0, writer: 1, editor: 7 }
        has_many :articles, class_name: article.name, foreign_key: :author_id, inverse_of: false
        has_one :first_article, -> { order(:id) }, class_name: article.name, foreign_key: :author_id, inverse_of: false
      end
      article.class_eval do
        self.table_name = "articles"
        belongs_to :author, class_name: author.name, optional: true, inverse_of: false
        has_many :comments, class_name: comment.name, foreign_key: :article_id, inverse_of: false
        def shouting_title = title&.upcase
      end
      news.class_eval { def news? = true }
      review.class_eval { def review? = true }
      comment.class_eval do
        self.table_name = "comments"
        belongs_to :article, class_name: article.name, optional: true, inverse_of: false
      end
      sample.class_eval do
        self.table_name = "samples"
        self.skip_time_zone_conversion_for_attributes = [:local_at]
        enum :status, { draft: 0, published: 1, archived: 5 }
        enum :kind, { small: "s", large: "l" }, prefix: true
        serialize :notes, coder: JSON
        store_accessor :prefs, :color, :size
        attribute :code, UpcaseType.new
        attribute :mood, :string, default: "calm"
        attribute :data, :json if mysql # MariaDB's JSON is LONGTEXT: ActiveRecord sees text
        attribute :prefs, :json if mysql
        alias_attribute :old_name, :legacy
        def shout = super&.upcase
        def twice = count.to_i * 2
      end
      define_random_model(random, mysql)
      { author: author, article: article, news: news, review: review, comment: comment, sample: sample, random: random }
    end

    # Random model features over the random columns (the same draw in every
    # process): an enum on an integer column, an alias, a declared type over a
    # column's, an attribute of the model's own.
    def define_random_model(model, mysql)
      r = Random.new(seed * 11 + 3)
      columns = random_columns
      model.table_name = "randoms"
      integer = columns.find { |_, type| type == :integer }
      model.enum(integer[0].to_sym, { "one" => 1, "zero" => 0, "minus" => -1 }) if integer && r.rand < 0.7
      string = columns.find { |_, type| type == :string }
      model.alias_attribute(:"#{string[0]}_alias", string[0].to_sym) if string
      declared = columns.select { |_, type| %i[string text].include?(type) }.sample(random: r)
      model.attribute(declared[0].to_sym, :integer) if declared && r.rand < 0.5
      model.attribute(:extra, :datetime, default: -> { Time.utc(2024, 1, 1) }) if r.rand < 0.5
      columns.each { |name, type| model.attribute(name.to_sym, :json) if mysql && type == :json }
    end

    # --- rows ------------------------------------------------------------------

    def seed_rows!
      models = model_set = @models.fetch(true)
      ActiveRecord.default_timezone = :utc
      authors = Array.new(6) do |i|
        models[:author].create!(name: string, email: "a#{i}@example.com", born: date, rating: float, active: maybe(bool),
                                role: %w[reader writer editor].sample(random: @rng), created_at: instant, updated_at: instant)
      end
      authors << models[:author].create!(name: nil, email: nil, born: nil, rating: nil, active: nil, role: nil)
      articles = Array.new(14) do |i|
        klass = [model_set[:article], model_set[:news], model_set[:review]].sample(random: @rng)
        klass.create!(author: authors.sample(random: @rng), title: maybe(string), body: string(long: true),
                      views: [0, -1, 2**40, @rng.rand(-2**62..2**62)].sample(random: @rng),
                      price: maybe(BigDecimal(@rng.rand(-10**6..10**6).to_s) / 100), published_at: maybe(instant),
                      created_at: instant, updated_at: instant)
      end
      articles.each do |article|
        @rng.rand(0..4).times do
          models[:comment].create!(article: article, body: string, approved: maybe(bool), created_at: instant,
                                   updated_at: instant)
        end
      end
      30.times { insert_sample(models[:sample]) }
      20.times do
        attrs = random_columns.to_h { |name, type, options| [name, maybe(random_value(type, options))] }
        models[:random].create!(attrs.transform_keys(&:to_sym))
      rescue ActiveRecord::ActiveRecordError, ArgumentError, RangeError
        nil # a value the column does not hold (an enum's, a declared type's): the row is left out
      end
      insert_raw_samples
    end

    def insert_sample(klass)
      attrs = {
        title: maybe(string), body: maybe(string(long: true)), count: maybe(integer(31)), big: maybe(integer(63)),
        ratio: maybe(float), price: maybe(decimal(8, 4)), amount: maybe(decimal(20, 0)),
        plain_decimal: maybe(mysql? ? decimal(10, 0) : decimal(12, 5)), flag: maybe(bool), day: maybe(date),
        at0: maybe(instant), at3: maybe(instant), at6: maybe(instant), at_default: maybe(instant),
        clock: maybe(Time.utc(2000, 1, 1, @rng.rand(24), @rng.rand(60), @rng.rand(60) + (@rng.rand(1000) / 1000r))),
        data: maybe(json_value), status: maybe(%w[draft published archived].sample(random: @rng)),
        kind: maybe(%w[small large].sample(random: @rng)), notes: maybe({ "n" => @rng.rand(100), "t" => string }),
        color: maybe(%w[red blue].sample(random: @rng)), size: maybe(@rng.rand(10)), code: maybe("c#{@rng.rand(1000)}"),
        shout: maybe(string), legacy: maybe(string), local_at: maybe(instant)
      }
      if postgresql?
        attrs.merge!(uid: maybe(SecureRandom.uuid), doc: maybe(json_value), tz_at: maybe(instant),
                     naive_json: maybe(json_value))
      end
      klass.create!(attrs)
    end

    # Values ActiveRecord does not write, in raw SQL: each is read back by both
    # encoders from the database's own representation.
    def insert_raw_samples
      c = connection
      rows = []
      if sqlite?
        rows << { "count" => "'12'", "big" => "' 7 '", "ratio" => "3", "flag" => "'f'", "day" => "'2024-02-30'",
                  "at3" => "'2024-01-02T03:04:05.1234567Z'", "at6" => "'2024-01-02 03:04:05+05:30'",
                  "clock" => "'12:30:45.5'", "title" => "42", "price" => "'12.345678'", "data" => "'{\"a\":1,\"a\":2}'" }
        rows << { "count" => "''", "flag" => "'off'", "day" => "'0999-12-31'", "at0" => "'2024-03-10T02:30:00'",
                  "at6" => "'2024-11-03 01:30:00'", "status" => "3", "kind" => "'m'", "data" => "' [1, 2.50, -0] '",
                  "price" => "'-0.00005'", "amount" => "'123456789012345678901'" }
        rows << { "count" => "1.9", "flag" => "'0'", "day" => "'2024-13-01'", "at0" => "''", "at3" => "'not a time'",
                  "data" => "'{\"x\": \"\\u00e9\\ud83d\\ude00\\n\"}'", "plain_decimal" => "'1e3'" }
      elsif postgresql?
        rows << { "ratio" => "'NaN'", "price" => "'NaN'", "naive_json" => "'{\"a\": 1, \"a\": 2}'",
                  "data" => "'{ \"b\" : [1.0, 2e3, -0, 1E-7] , \"c\":null }'", "at6" => "'infinity'",
                  "day" => "'infinity'", "tz_at" => "'2024-03-10 02:30:00-05'", "status" => "3" }
        rows << { "ratio" => "'Infinity'", "day" => "'0044-03-15'", "at0" => "'1582-10-10 10:00:00'",
                  "naive_json" => "'[\"\\u2028\", \"<script>\", 12345678901234567890]'", "kind" => "'x'" }
      else
        rows << { "day" => "'1000-01-01'", "at0" => "'1000-01-01 00:00:00'", "at6" => "'9999-12-31 23:59:59.999999'",
                  "status" => "3", "kind" => "'x'", "data" => "'{\"a\":1,\"a\":2}'", "flag" => "2" }
      end
      now = "'2024-05-06 07:08:09'"
      rows.each do |row|
        row = row.merge("created_at" => now, "updated_at" => now)
        c.execute("INSERT INTO samples (#{row.keys.join(', ')}) VALUES (#{row.values.join(', ')})")
      end
    end

    # --- values ----------------------------------------------------------------

    def maybe(value) = @rng.rand < 0.15 ? nil : value
    def bool = @rng.rand < 0.5

    STRING_PIECES = ["plain", "<b>&amp;</b>", "\"quoted\"", "back\\slash", "line\nbreak", "\u2028\u2029", "tab\t",
                     "\u0001\u001f", "été", "日本語", "😀", "", " ", "/path/", "'single'"].freeze

    def string(long: false)
      n = long ? @rng.rand(1..12) : @rng.rand(1..3)
      Array.new(n) { STRING_PIECES.sample(random: @rng) }.join(" ")
    end

    def integer(bits)
      [0, 1, -1, 2**bits - 1, -2**bits, @rng.rand(-2**bits..(2**bits - 1)), @rng.rand(-1000..1000)].sample(random: @rng)
    end

    def float
      edges = [0.0, -0.0, 1.5, 0.1, 1e300, -1e-300, 5e-324, 1e22, 123_456_789.123456789, 1.0 / 3]
      edges << Float::INFINITY if sqlite? || postgresql?
      [edges.sample(random: @rng), (@rng.rand - 0.5) * 10**@rng.rand(-10..10), [@rng.bytes(8)].pack("a8").unpack1("G")]
        .sample(random: @rng).then { |f| f.nan? || (mysql? && !single?(f)) ? 2.5 : f }
    end

    # MariaDB's FLOAT is single precision.
    def single?(f)
      f.finite? && (f.zero? || (f.abs < 3e38 && f.abs > 1e-37))
    end

    def decimal(digits, scale)
      int_digits = digits - scale
      int_part = @rng.rand(0...(10**[int_digits, 1].max)) * (@rng.rand < 0.3 ? -1 : 1)
      int_part = 0 if int_digits.zero?
      frac = scale.positive? ? @rng.rand(0...(10**scale)).to_s.rjust(scale, "0") : nil
      BigDecimal(frac ? "#{int_part}.#{frac}" : int_part.to_s)
    end

    def date
      year = [@rng.rand(1583..2100), @rng.rand(1900..2030), 2024, 2000, 1600][(@rng.rand * 5).to_i]
      Date.new(year, @rng.rand(1..12), 1) + @rng.rand(0..30)
    end

    def instant
      case @rng.rand(5)
      when 0 then DST_INSTANTS.sample(random: @rng) + (@rng.rand(-3600..3600) * [0, 1].sample(random: @rng))
      when 1 then Time.at(@rng.rand(0..2_000_000_000), @rng.rand(0..999_999), :usec).utc
      when 2 then Time.utc(@rng.rand(1900..2100), @rng.rand(1..12), @rng.rand(1..28), @rng.rand(24), @rng.rand(60), @rng.rand(60))
      when 3 then Time.utc(2024, 1, 1) + (@rng.rand(0..10**9) / 1000r)
      else Time.utc(2024, 6, 30, 23, 59, 59) + (@rng.rand(0..999_999) / 1_000_000r)
      end
    end

    def json_value(depth = 0)
      return STRING_PIECES.sample(random: @rng) if depth > 2

      case @rng.rand(7)
      when 0 then Array.new(@rng.rand(0..3)) { json_value(depth + 1) }
      when 1, 2 then Array.new(@rng.rand(0..3)) { |i| ["k#{i}", json_value(depth + 1)] }.to_h.merge("<k>" => "v")
      when 3 then [1, -0.5, 1.0e20, 2**70, 0.1 + 0.2].sample(random: @rng)
      when 4 then [true, false, nil].sample(random: @rng)
      else string
      end
    end
  end
end
