# frozen_string_literal: true

require "test_helper"
require "support/record_tests"
require "support/native_read_checks"
require "jetson/rails"
require "active_record"
require "tmpdir"

# Datetime and time columns holding text (sqlite3 hands ActiveRecord the
# String as stored), written as ActiveSupport writes ActiveRecord's cast of
# it. ActiveModel reads such a String one of two ways, by the Ruby it runs on
# (the regex of Ruby < 3.2, Time.new from 3.2): both are met here, each on
# its own Ruby, by the same test, with ActiveRecord in this process as the
# oracle (ActiveSupport's own encoder against Jetson::RailsEncoder, records
# loaded anew for each so Jetson meets values no one has read).
#
# Rows: seeded random strings (fractions of 0-12 digits, "Z", offsets of
# every spelling, "T" or a space, fields out of range, other separators)
# and hand-picked edges, each stored in every datetime column (precisions
# nil, 0, 3, 6) and in the time columns (as it is, and its time part alone);
# read through models that are time zone aware and not, and one whose types
# say their timezone; under settings that cover default_timezone :utc and
# :local, the process's TZ, Time.zone nil or not, time_precision 0-9 and the
# legacy format.
#
#   JETSON_TIME_STRINGS_SEED=S  the random strings' seed
class RecordsTimeStringsTest < Minitest::Test
  include NativeReadChecks
  include RecordTests

  DbCast = Jetson::Rails::DbCast

  DATETIME_COLUMNS = { "at" => nil, "at0" => 0, "at3" => 3, "at6" => 6 }.freeze
  TIME_COLUMNS = { "clock" => nil, "clock3" => 3 }.freeze

  # What each Ruby's ActiveModel reads, and where the two readings part.
  EDGES = [
    "2024-01-02 03:04:05", "2024-01-02T03:04:05", "2024-01-02 03:04:05.123456", "2024-01-02 03:04:05.123456789",
    "2024-01-02 03:04:05.1234567891234", "2024-01-02 03:04:05.1", "2024-01-02 03:04:05.", "2024-01-02 03:04:05.Z",
    "2024-01-02 03:04:05Z", "2024-01-02T03:04:05.999999999Z", "2024-01-02 03:04:05z", "2024-01-02 03:04:05ZZ",
    "2024-01-02 03:04:05+09:00", "2024-01-02 03:04:05+0900", "2024-01-02 03:04:05+09", "2024-01-02 03:04:05+09:",
    "2024-01-02 03:04:05+090", "2024-01-02 03:04:05-00:30", "2024-01-02 03:04:05-00:00", "2024-01-02 03:04:05-0000",
    "2024-01-02 03:04:05-00", "2024-01-02 03:04:05+00:00", "2024-01-02 03:04:05+00", "2024-01-02 03:04:05 +09:00",
    "2024-01-02 03:04:05+23:59", "2024-01-02 03:04:05-23:59", "2024-01-02 03:04:05+24:00", "2024-01-02 03:04:05+09:60",
    "2024-01-02 03:04:05+99:99", "2024-01-02 03:04:05+05:30:15", "2024-01-02 03:04:05UTC", "2024-01-02 03:04:05A",
    "2024-01-02\t03:04:05", "2024-01-02\n03:04:05", "2024-01-02t03:04:05", "2024-01-02  03:04:05",
    " 2024-01-02 03:04:05", "2024-01-02 03:04:05 ", "2024-01-02 03:04:05\n", "2024-01-02", "2024-01-02 03:04",
    "2021-02-29 00:00:00", "2024-02-29 00:00:00", "2021-02-30 12:00:00", "2021-02-31 00:00:00Z", "2021-02-32 00:00:00",
    "2024-04-31 00:00:00+05:00", "2024-01-02 24:00:00", "2024-01-02 23:59:60", "2024-01-02 23:60:00",
    "2024-13-01 00:00:00", "2024-00-01 00:00:00", "2024-01-00 00:00:00", "0000-00-00 00:00:00", "0000-01-01 00:00:00",
    "0001-01-01 00:00:00", "1582-10-10 10:00:00", "9999-12-31 23:59:59.999999999", "12024-01-02 03:04:05",
    "2024-1-02 03:04:05", "2024-03-10 02:30:00", "2024-03-10 01:59:59.999999999", "2024-11-03 01:30:00",
    "2024-11-03 01:30:00-04:00", "2024-11-03 01:30:00-05:00", "2024-03-31 01:30:00", "2024-10-27 01:30:00.5",
    "1969-12-31 23:59:59.9", "1900-01-01 00:00:00", "03:04:05", "03:04:05.123456789Z", "03:04:05+05:30",
    "T03:04:05", "not a time", "infinity", "-infinity", "2024-01-02 03:04:05 BC"
  ].freeze

  # One string, drawn mostly near what databases hold, sometimes not.
  def self.random_string(rng)
    pick = ->(common, rare, p = 0.9) { rng.rand < p ? common.call : rare.sample(random: rng) }
    year = pick.call(-> { format("%04d", rng.rand(1900..2100)) }, %w[0000 0001 1583 9999 999 12024 2024])
    month = pick.call(-> { format("%02d", rng.rand(1..12)) }, %w[00 13 1 02])
    day = pick.call(-> { format("%02d", rng.rand(1..28)) }, %w[00 29 30 31 32 1])
    hour = pick.call(-> { format("%02d", rng.rand(0..23)) }, %w[24 25 1 00])
    minute = pick.call(-> { format("%02d", rng.rand(0..59)) }, %w[60 5])
    second = pick.call(-> { format("%02d", rng.rand(0..59)) }, %w[60 61 5])
    if rng.rand < 0.15 # around New York's and London's 2024 transitions
      year, month, day, hour = [%w[2024 03 10 02], %w[2024 11 03 01], %w[2024 03 31 01], %w[2024 10 27 01]]
                               .sample(random: rng)
    end
    separator = pick.call(-> { [" ", "T"].sample(random: rng) }, ["\t", "t", "  ", "\n", "_"], 0.95)
    fraction = rng.rand < 0.6 ? ".#{Array.new(rng.rand(0..12)) { rng.rand(10) }.join}" : ""
    zone = case rng.rand
           when 0...0.4 then ""
           when 0.4...0.55 then "Z"
           else
             sign = %w[+ -].sample(random: rng)
             hours = pick.call(-> { format("%02d", rng.rand(0..14)) }, %w[00 23 24 99 9])
             minutes = pick.call(-> { %w[00 30 45].sample(random: rng) }, %w[59 60 99 0])
             [
               "#{sign}#{hours}:#{minutes}", "#{sign}#{hours}#{minutes}", "#{sign}#{hours}", "#{sign}00:00", "#{sign}00",
               " #{sign}#{hours}:#{minutes}", "#{sign}#{hours}:#{minutes}:15", "#{sign}#{hours}:", "UTC", "z"
             ].sample(random: rng)
           end
    "#{year}-#{month}-#{day}#{separator}#{hour}:#{minute}:#{second}#{fraction}#{zone}"
  end

  # Settings: [default_timezone, TZ, Time.zone, time_precision, standard format]
  COMBOS = [
    [:utc, "UTC", "UTC", 3, true],
    [:utc, "UTC", nil, 9, true],
    [:local, "America/New_York", "America/New_York", 9, true],
    [:local, "Asia/Kolkata", "Asia/Tokyo", 6, true],
    [:utc, "America/New_York", "America/New_York", 0, true],
    [:local, "Europe/London", nil, 9, true],
    [:local, "America/New_York", "Asia/Tokyo", 3, false],
    [:utc, "Asia/Tokyo", "Europe/London", 7, true]
  ].freeze

  def self.seed = Integer(ENV["JETSON_TIME_STRINGS_SEED"] || 20_261_126)

  # The database and its models, made once per process.
  def self.world
    @world ||= begin
      base = Class.new(ActiveRecord::Base) { self.abstract_class = true }
      const_set(:Base, base)
      base.establish_connection(adapter: "sqlite3", database: File.join(Dir.mktmpdir("jetson-times"), "times.sqlite3"))
      c = base.connection
      c.create_table(:time_strings, force: true) do |t|
        DATETIME_COLUMNS.each { |name, precision| t.datetime name, precision: precision }
        TIME_COLUMNS.each { |name, precision| t.time name, precision: precision }
        t.time :clock_part
        t.datetime :typed_utc, precision: 6
        t.datetime :typed_local, precision: 6
        t.string :source
      end
      rng = Random.new(seed)
      strings = EDGES + Array.new(400) { random_string(rng) }
      strings.each_slice(100) do |slice|
        rows = slice.map do |s|
          part = s.sub(/\A\d{4}-\d\d-\d\d(?:T|\s)/, "")
          values = [s] * (DATETIME_COLUMNS.size + TIME_COLUMNS.size) + [part, s, s, s]
          "(#{values.map { |v| c.quote(v) }.join(', ')})"
        end
        columns = DATETIME_COLUMNS.keys + TIME_COLUMNS.keys + %w[clock_part typed_utc typed_local source]
        c.execute("INSERT INTO time_strings (#{columns.join(', ')}) VALUES #{rows.join(', ')}")
      end
      models = [true, false].to_h do |aware|
        model = const_set(aware ? :Aware : :Naive, Class.new(base))
        model.class_eval do
          self.table_name = "time_strings"
          self.time_zone_aware_attributes = aware
          # Types whose timezone is their own, not ActiveRecord.default_timezone.
          attribute :typed_utc, ActiveRecord::Type::DateTime.new(timezone: :utc, precision: 6)
          attribute :typed_local, ActiveRecord::Type::DateTime.new(timezone: :local, precision: 6)
        end
        [aware, model]
      end
      { models: models, count: strings.size }
    end
  end

  def apply(combo)
    default, tz, zone, precision, standard = combo
    saved = [ActiveRecord.default_timezone, ENV["TZ"], Time.zone, ActiveSupport::JSON::Encoding.time_precision,
             ActiveSupport::JSON::Encoding.use_standard_json_time_format]
    ActiveRecord.default_timezone = default
    ENV["TZ"] = tz
    Time.zone = zone
    ActiveSupport::JSON::Encoding.time_precision = precision
    ActiveSupport::JSON::Encoding.use_standard_json_time_format = standard
    saved
  end

  def restore(saved)
    ActiveRecord.default_timezone, ENV["TZ"], Time.zone, ActiveSupport::JSON::Encoding.time_precision,
      ActiveSupport::JSON::Encoding.use_standard_json_time_format = saved
  end

  # [:ok, bytes] or [:error, class, message]
  def outcome(encoder, value)
    ActiveSupport.json_encoder = encoder
    [:ok, ActiveSupport::JSON.encode(value)]
  rescue StandardError => e
    [:error, e.class.name, e.message]
  ensure
    ActiveSupport.json_encoder = STOCK
  end

  # Each record encoded alone (an error raised for one row is that row's
  # outcome), from records loaded anew for each encoder.
  def test_time_strings_against_activerecord
    world = self.class.world
    compared = errors = native = values = 0
    inconsistent = []
    world[:models].each do |aware, model|
      COMBOS.each do |combo|
        saved = apply(combo)
        begin
          stock_records = model.order(:id).to_a
          stock = stock_records.map { |r| outcome(STOCK, r) }
          jetson_records = model.order(:id).to_a
          jetson = jetson_records.map { |r| outcome(Jetson::RailsEncoder, r) }
          native += jetson_records.count { |r| uncast?(r, "at") }
          values += jetson_records.size
          assert_equal world[:count], stock.size
          stock.zip(jetson).each_with_index do |(s, j), i|
            if s != j && inconsistent_time?(stock_records[i])
              inconsistent << stock_records[i].source
              next
            end
            compared += 1
            errors += 1 if s[0] == :error
            next if s == j

            source = model.order(:id).offset(i).first.source
            flunk "#{aware ? 'zone aware' : 'not zone aware'} #{combo.inspect} (seed #{self.class.seed}, " \
                  "Ruby #{RUBY_VERSION}): #{source.inspect}\n stock:  #{s.inspect}\n jetson: #{j.inspect}"
          end
        ensure
          restore(saved)
        end
      end
    end
    assert_operator compared, :>, 2 * COMBOS.size * world[:count] * 0.95
    assert_operator errors, :<, compared / 20, "the rows are meant to encode"
    # Most random strings are ones the native cast settles (the rest: the reader).
    assert_operator native, :>, values / 4, "the native cast took #{native} of #{values} values"
    puts "\ntime strings: #{compared} records compared (Ruby #{RUBY_VERSION}), #{native} of #{values} values of " \
         "`at` cast natively, #{errors} raising the same error on both sides, #{inconsistent.size} left out for " \
         "Ruby's inconsistent Times: #{inconsistent.uniq.first(8).inspect}"
  end

  # Ruby 3.4 (not 3.3): Time.new("2021-02-29 00:00:00", in: "UTC") (and
  # with "Z", or second 60) is a UTC Time whose instant is March 1st but
  # whose fields (Time#day, and Time#xmlschema, in C since 3.4) still say
  # February 29th. The native
  # cast refuses such a String (the day does not exist), the reader makes
  # that Time, and Jetson's writer of Time objects prints its instant: a
  # difference of the Time writer (ext/jetson/times.c), not of the casts,
  # left out here and counted. ActiveSupport 8's TimeWithZone in a UTC zone
  # prints its utc Time's fields too (utc.iso8601), where 7.2 printed
  # `utc + 0`, a Time made anew: the same Time, seen through the zone.
  def inconsistent_time?(record)
    record.attributes.each_value.any? do |v|
      v = v.utc if v.instance_of?(::ActiveSupport::TimeWithZone)
      v.instance_of?(::Time) && v.utc? && v.xmlschema(9) != ::Time.at(v.to_r).utc.xmlschema(9)
    end
  end

  # ActiveModel's own condition (Helpers::TimeValue) for the reading the
  # probe must have found: never UNKNOWN on a stock ActiveModel, which would
  # leave every time String to the readers.
  def test_the_probe_finds_this_rubys_reading
    self.class.world
    expected = RUBY_VERSION >= "3.2" ? DbCast::TIME_STRINGS_TIME_NEW : DbCast::TIME_STRINGS_REGEX
    assert_equal expected, DbCast.time_string_rules
    assert_equal expected, DbCast.context.last
  end

  # The strings ActiveRecord and apps write are cast natively on every Ruby:
  # encoding leaves each value uncast in its record and allocates nothing
  # per value (the reader makes a Time, and a TimeWithZone when zone aware).
  ORDINARY = ["2024-01-02 03:04:05.123456", "2024-01-02 03:04:05", "2024-01-02T03:04:05.5",
              "2024-01-02 03:04:05.123456789", "2024-01-02T03:04:05Z", "2024-01-02 03:04:05.25+05:30",
              "2024-01-02 03:04:05-08:00"].freeze

  def test_ordinary_strings_are_cast_natively
    world = self.class.world
    model = world[:models][true]
    base = model.superclass
    base.connection.create_table(:ordinary_times, force: true) do |t|
      t.datetime :at, precision: 6
      t.time :clock
    end
    rows = Array.new(30) { |i| ORDINARY[i % ORDINARY.size].sub("03:", format("%02d:", i % 24)) }
    base.connection.execute("INSERT INTO ordinary_times (at, clock) VALUES " \
                            "#{rows.map { |s| "(#{base.connection.quote(s)}, #{base.connection.quote(s[11..])})" }.join(', ')}")
    saved = apply([:utc, "UTC", "America/New_York", 6, true])
    ActiveSupport.json_encoder = Jetson::RailsEncoder
    [true, false].each do |aware|
      ordinary = self.class.const_set(aware ? :AwareOrdinary : :NaiveOrdinary, Class.new(base))
      ordinary.table_name = "ordinary_times"
      ordinary.time_zone_aware_attributes = aware
      %w[at clock].each do |column|
        load = ->(ids) { ordinary.select(:id, column).where(id: ids).order(:id).to_a }
        options = { only: ["id", column] }
        ActiveSupport::JSON.encode(load.call(1..2), options) # plans and descriptors, made once
        many, few = load.call(1..30), load.call(1..10)
        per_record = (allocations { ActiveSupport::JSON.encode(many, options) } -
                      allocations { ActiveSupport::JSON.encode(few, options) }) / 20.0
        label = "#{column} (#{aware ? 'zone aware' : 'not zone aware'}, Ruby #{RUBY_VERSION})"
        assert_operator per_record, :<=, 0.5, "#{label}: #{per_record} objects per record: read through the reader?"
        assert many.all? { |r| uncast?(r, column) }, "#{label}: a value was cast into the record"
        ActiveSupport.json_encoder = STOCK
        expected = ActiveSupport::JSON.encode(load.call(1..30), options)
        ActiveSupport.json_encoder = Jetson::RailsEncoder
        assert_equal expected, ActiveSupport::JSON.encode(load.call(1..30), options), label
      end
    end
  ensure
    restore(saved) if saved
    ActiveSupport.json_encoder = STOCK
  end
end
