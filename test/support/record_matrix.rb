# frozen_string_literal: true

require "tmpdir"
require_relative "../../kit/database_servers"
require_relative "../../kit/record_world"

# The matrix of the record differential tests: which databases, which
# settings of ActiveSupport and ActiveRecord, which queries (as apps write
# them: relations, association proxies, find_by_sql, select with aliases,
# records built with new or changed), each with the serialization options
# that apply to it. Queries are named so that the jbuilder gem's child
# process (RecordsOracle) runs the same ones.
module RecordMatrix
  ADAPTERS = %w[sqlite3 postgresql mysql2 trilogy].freeze

  # The databases of this run: [adapter, config] for those that could be
  # started, and [adapter, reason] for the others. mysql2 and trilogy each
  # get a database of their own on the one MariaDB server.
  def self.databases
    @databases ||= ADAPTERS.map do |adapter|
      case adapter
      when "sqlite3"
        [adapter, { adapter: "sqlite3", database: File.join(Dir.mktmpdir("jetson-records"), "records.sqlite3") }]
      when "postgresql"
        config = Kit::DatabaseServers.available(:postgresql)
        [adapter, config || Kit::DatabaseServers.reason(:postgresql)]
      else
        config = Kit::DatabaseServers.available(:mariadb)
        [adapter, config ? Kit::DatabaseServers.create_database(config.merge(adapter: adapter), "jetson_#{adapter}") :
                           Kit::DatabaseServers.reason(:mariadb)]
      end
    end
  end

  # A child process uses the databases its parent started.
  def self.use_databases(databases)
    @databases = databases
  end

  def self.seed
    Integer(ENV["JETSON_RECORDS_SEED"] || 20_261_125)
  end

  # The world of one adapter, built once per process (rows inserted by the
  # first to ask; a child process passes insert: false and reads them).
  def self.world(adapter, insert: true)
    @worlds ||= {}
    @worlds[adapter] ||= begin
      found = databases.assoc(adapter)
      config = found && found[1]
      raise ArgumentError, "#{adapter}: #{config}" unless config.is_a?(Hash)

      world = Kit::RecordWorld.new(adapter: adapter, config: config, seed: seed + ADAPTERS.index(adapter))
      if insert
        world.create_tables!
        world.define_models!
        world.seed_rows!
      else
        world.define_models!
      end
      world
    end
  end

  SETTINGS = %i[escape_html_entities_in_json use_standard_json_time_format time_precision].freeze

  # Every value of each setting appears; daylight saving changes are met in
  # the zone and, for default_timezone :local, in the process's TZ.
  COMBOS = [
    { zone: "America/New_York", default: :local, tz: "America/New_York", precision: 3, standard: true, html: true },
    { zone: "Asia/Tokyo", default: :utc, tz: "UTC", precision: 0, standard: true, html: false },
    { zone: "UTC", default: :utc, tz: "UTC", precision: 3, standard: false, html: true },
    { zone: "America/New_York", default: :utc, tz: "UTC", precision: 6, standard: true, html: true },
    { zone: "UTC", default: :utc, tz: "UTC", precision: 3, standard: true, html: true },
    { zone: "Asia/Tokyo", default: :local, tz: "Asia/Tokyo", precision: 9, standard: true, html: true },
    { zone: "America/New_York", default: :local, tz: "Europe/London", precision: 2, standard: false, html: false },
    { zone: nil, default: :utc, tz: "UTC", precision: 3, standard: true, html: true }
  ].freeze

  # JETSON_RECORDS_COMBOS=N runs the first N (rake test:asan: fewer, the C
  # is slower there and every kind is met in the first ones).
  def self.combos
    COMBOS.first(Integer(ENV.fetch("JETSON_RECORDS_COMBOS", COMBOS.size)))
  end

  # Applies a combination (and returns what to restore).
  def self.apply(combo)
    saved = { zone: Time.zone, default: ActiveRecord.default_timezone, tz: ENV["TZ"],
              settings: SETTINGS.to_h { |name| [name, ActiveSupport::JSON::Encoding.public_send(name)] } }
    Time.zone = combo[:zone]
    ActiveRecord.default_timezone = combo[:default]
    ENV["TZ"] = combo[:tz]
    ActiveSupport::JSON::Encoding.time_precision = combo[:precision]
    ActiveSupport::JSON::Encoding.use_standard_json_time_format = combo[:standard]
    ActiveSupport::JSON::Encoding.escape_html_entities_in_json = combo[:html]
    saved
  end

  def self.restore(saved)
    Time.zone = saved[:zone]
    ActiveRecord.default_timezone = saved[:default]
    ENV["TZ"] = saved[:tz]
    saved[:settings].each { |name, value| ActiveSupport::JSON::Encoding.public_send(:"#{name}=", value) }
  end

  # The block's value, run under a combination, which is undone after it
  # (raise or not).
  def self.with_combo(combo)
    saved = apply(combo)
    begin
      yield
    ensure
      restore(saved)
    end
  end

  SAMPLE_OPTIONS = [nil, { only: %i[id at6 day data clock] }, { except: %i[body notes prefs] },
                    { methods: %i[twice old_name color] }, { only: [:status, :kind, "price", :amount] },
                    { root: true, only: :id },
                    # only:'s order against the columns', a name twice, one no attribute has
                    { only: [:title, "id", :title, :nope, :day], methods: :twice }].freeze

  # name => [lambda(models) building the value anew, option sets]
  QUERIES = {
    "relation" => [->(m) { m[:sample].order(:id) }, SAMPLE_OPTIONS],
    "records" => [->(m) { m[:sample].order(:id).to_a }, SAMPLE_OPTIONS],
    "where/limit" => [->(m) { m[:sample].where.not(id: nil).order(id: :desc).limit(9) }, [nil]],
    "select aliases" => [lambda { |m|
      m[:sample].select("id, title AS headline, length(title) AS title_length, at6, day AS d, data").order(:id)
    }, [nil, { except: :headline }]],
    "select some" => [->(m) { m[:sample].select(:id, :at3, :clock, :status, :price).order(:id).to_a }, [nil]],
    "find_by_sql" => [->(m) { m[:sample].find_by_sql("SELECT samples.*, 1 AS one, title AS t2 FROM samples ORDER BY id") },
                      [nil, { only: %w[id one t2 at0] }]],
    "single" => [->(m) { m[:sample].order(:id).first }, SAMPLE_OPTIONS],
    "in a Hash" => [->(m) { { "items" => m[:sample].order(:id).limit(5), meta: { count: 5 } } }, [nil, { only: :id }]],
    "new records" => [lambda { |m|
      [m[:sample].new(title: "new <b>", at6: Time.utc(2024, 1, 2, 3, 4, 5, 678_901), count: 3, data: { "a" => [1] }),
       m[:article].new, m[:news].new(title: "n")]
    }, [nil, { only: %i[title at6 type] }]],
    "changed" => [lambda { |m|
      m[:sample].order(:id).limit(8).to_a.each_with_index do |s, i|
        s.title = "changed #{i}" if i.even?
        s.at3 = Time.utc(2030, 1, 1, 0, 0, i) if i % 3 == 0
        s.count = nil if i == 1
        s.data = { "changed" => i } if i == 2
      end
    }, [nil, { except: :notes }]],
    "read first" => [lambda { |m|
      m[:sample].order(:id).to_a.each_with_index { |s, i| s.public_send(%i[at6 day price data status][i % 5]) }
    }, [nil]],
    "sti" => [->(m) { m[:article].order(:id) },
              [nil, { only: %i[id type title published_at] }, { only: %i[published_at type id] },
               { methods: :shouting_title }]],
    "sti subclass" => [->(m) { m[:news].order(:id).to_a }, [nil]],
    "include" => [->(m) { m[:author].includes(articles: :comments).order(:id) },
                  [{ include: { articles: { include: :comments, except: :body } } }, { include: :first_article }]],
    "belongs_to" => [->(m) { m[:comment].includes(article: :author).order(:id) },
                     [{ include: { article: { only: %i[id title], include: :author } } },
                      { only: %i[body id], include: { article: { only: %i[title id] } } }]],
    "proxies" => [->(m) { m[:author].includes(:articles).order(:id).to_a.map(&:articles) }, [nil, { only: :id }]],
    "proxies to_a" => [->(m) { m[:article].includes(:comments).order(:id).to_a.map { |a| a.comments.to_a } }, [nil]],
    "unloaded proxy" => [->(m) { m[:author].order(:id).first.articles }, [nil]],
    "authors" => [->(m) { m[:author].order(:id) }, [nil, { except: :email }]],
    "random model" => [->(m) { m[:random].order(:id) }, [nil, { except: :created_at }]],
    "random select" => [->(m) { m[:random].select(m[:random].column_names.sample(3, random: Random.new(m[:random].count)) + ["id"]).order(:id).to_a },
                        [nil]]
  }.freeze
end
