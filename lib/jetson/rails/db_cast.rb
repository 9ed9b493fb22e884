# frozen_string_literal: true

module Jetson
  module Rails
    # The Ruby half of native casting (ext/jetson/rails/db_cast.c): a value loaded
    # from the database and not read yet is written as the bytes ActiveSupport
    # writes for what the attribute's type would make of it, without making
    # it. Here: which types are ActiveRecord's stock ones and what the native
    # side needs of them (a descriptor, made once per type object), the
    # per-call settings a cast depends on, and the time zone offsets.
    #
    # The kinds (KIND_*) are defined by the extension.
    #
    # @api private
    module DbCast
      # Not cast natively: the attribute's reader runs.
      NONE = [0].freeze

      # Type classes cast natively, by kind. Exact classes only: a subclass
      # may override any step of the cast. Worked out again when an adapter
      # is loaded after the first call (its classes are defined then); the
      # table and the adapters it was made for are kept as one frozen pair,
      # so a thread never reads a table with another's adapters.
      def self.type_classes
        adapters = ::ActiveRecord::ConnectionAdapters
        loaded = [defined?(adapters::SQLite3Adapter::SQLite3Integer), defined?(adapters::PostgreSQL::OID::Timestamp)]
        kept = @type_classes
        return kept[1] if kept && kept[0] == loaded

        table = type_classes_table
        @type_classes = [loaded, table].freeze
        table
      end

      def self.type_classes_table
        model = ::ActiveModel::Type
        record = ::ActiveRecord::Type
        classes = {
          KIND_INTEGER => [model::Integer, model::BigInteger, record::UnsignedInteger, record::DecimalWithoutScale],
          KIND_FLOAT => [model::Float],
          KIND_DECIMAL => [model::Decimal],
          KIND_STRING => [model::String, model::ImmutableString, record::Text],
          KIND_BOOLEAN => [model::Boolean],
          KIND_DATE => [record::Date],
          KIND_DATETIME => [record::DateTime],
          KIND_TIME => [record::Time],
          KIND_JSON => [record::Json]
        }
        adapters = ::ActiveRecord::ConnectionAdapters
        if defined?(adapters::SQLite3Adapter::SQLite3Integer)
          classes[KIND_INTEGER] += [adapters::SQLite3Adapter::SQLite3Integer]
        end
        if defined?(adapters::PostgreSQL::OID::Timestamp)
          oid = adapters::PostgreSQL::OID
          classes[KIND_DECIMAL] += [oid::Decimal]
          classes[KIND_DATE] += [oid::Date]
          classes[KIND_DATETIME] += [oid::DateTime, oid::Timestamp]
          classes[KIND_TIMESTAMPTZ] = [oid::TimestampWithTimeZone]
          classes[KIND_JSON] += [oid::Jsonb]
          classes[KIND_UUID] = [oid::Uuid]
        end
        classes.each_with_object({}) do |(kind, list), by_class|
          list.each { |klass| by_class[klass] = kind if stock_type_class?(klass) }
        end.freeze
      end
      private_class_method :type_classes_table

      # The methods a cast runs, by the kind's first class: each must still be
      # ActiveModel's or ActiveRecord's definition.
      CAST_METHODS = %i[deserialize cast cast_value].freeze

      def self.stock_type_class?(klass)
        CAST_METHODS.all? do |name|
          next true unless klass.method_defined?(name) || klass.private_method_defined?(name)

          method = klass.instance_method(name)
          path = method.source_location&.first
          path.nil? || %r{/(?:active_model|active_record)/}.match?(path)
        end
      end

      ZONE_TABLE_RANGE = (::Time.utc(1900).to_i..::Time.utc(2100).to_i).freeze
      @zone_tables = {}

      Y2K = 946_684_800 # 2000-01-01 00:00:00 UTC
      private_constant :Y2K

      # [type, timezone, string, what the regex reading gives, what
      # Time.new gives]; a result is [seconds, nanoseconds, utc?, offset],
      # offset :local for a local Time (getlocal, Time.local). Each is a
      # rule db_cast_times.c follows: digits past the sixth or the ninth,
      # "Z" and "-00:00" when the timezone is local, the sign of "-00:30",
      # a fixed offset kept or shown getutc/getlocal, "T", the time type's
      # 2000-01-01.
      TIME_STRING_PROBES = [
        [:datetime, :utc, "2000-01-01 00:00:00.1234567891", [Y2K, 123_456_000, true, 0], [Y2K, 123_456_789, true, 0]],
        [:datetime, :utc, "2000-01-01T00:00:00-00:30", [Y2K - 1800, 0, true, 0], [Y2K + 1800, 0, false, -1800]],
        [:datetime, :utc, "2000-01-01 00:00:00.5-0130", [Y2K + 5400, 500_000_000, true, 0],
         [Y2K + 5400, 500_000_000, false, -5400]],
        [:datetime, :utc, "2000-01-01 00:00:00+0000", [Y2K, 0, true, 0], [Y2K, 0, false, 0]],
        [:datetime, :local, "2000-01-01 00:00:00Z", [Y2K, 0, false, :local], [Y2K, 0, true, 0]],
        [:datetime, :local, "2000-01-01 00:00:00-00:00", [Y2K, 0, false, :local], [Y2K, 0, true, 0]],
        [:datetime, :local, "2000-01-01T00:00:00-00", [Y2K, 0, false, :local], [Y2K, 0, true, 0]],
        [:datetime, :local, "2000-01-01 00:00:00+09", [Y2K - 32_400, 0, false, :local], [Y2K - 32_400, 0, false, 32_400]],
        [:time, :utc, "12:00:00.1234567891", [Y2K + 43_200, 123_456_000, true, 0], [Y2K + 43_200, 123_456_789, true, 0]],
        [:time, :local, "2024-05-06T12:00:00Z", [Y2K + 43_200, 0, false, :local], [Y2K + 43_200, 0, true, 0]]
      ].freeze

      # Descriptors by type object. Types live as long as their model's
      # schema (or a connection's type map); a schema reload makes new ones,
      # so the cache is emptied when it grows past what a few reloads leave.
      @descriptors = [nil, {}.compare_by_identity] # [the type_classes table they were made with, type => descriptor]
      @lock = Mutex.new
      DESCRIPTORS_MAX = 10_000

      class << self
        # [kind, seconds precision or -1, decimal scale or nil, time zone aware
        # (false, true, or :time_of_day for a time column whose value
        # ActiveRecord moves to 2000-01-01 in Time.zone: see zone_time_rule),
        # timezone (:utc, :local, or nil for ActiveRecord.default_timezone),
        # enum labels (Hash of database value => label) or nil, enum subkind,
        # the type], or NONE. Made once per type object and table of type
        # classes (an adapter loaded later adds classes: a type described
        # before as NONE may now have a cast).
        def descriptor(type)
          table = type_classes
          kept = @descriptors
          found = kept[1][type] if kept[0].equal?(table)
          return found if found

          made = describe(type) || NONE
          @lock.synchronize do
            @descriptors = [table, {}.compare_by_identity] unless @descriptors[0].equal?(table)
            @descriptors[1].clear if @descriptors[1].size >= DESCRIPTORS_MAX
            @descriptors[1][type] = made
          end
          made
        end

        # A cast leaf's value (ext/jetson/builder/records.c), where the
        # builder needs the object the reader would have given: the type's
        # cast of raw under the snapshot's Time.zone.
        def materialize(snapshot, raw)
          descriptor, zone = snapshot
          type = descriptor[7]
          descriptor[3] ? ::Time.use_zone(zone) { type.deserialize(raw) } : type.deserialize(raw)
        end

        # What a cast reads from the moment of the call: nil without
        # ActiveRecord, else [Time.zone, default timezone is UTC,
        # ActiveSupport.parse_json_times, ActiveRecord::Relation,
        # ActiveRecord::Associations::CollectionProxy, BigDecimal rounds half
        # up, time_string_rules].
        def context
          return nil unless defined?(::ActiveRecord::Relation) && defined?(::ActiveRecord.default_timezone)

          [::Time.zone, ::ActiveRecord.default_timezone == :utc, ::ActiveSupport.parse_json_times,
           ::ActiveRecord::Relation, ::ActiveRecord::Associations::CollectionProxy,
           ::BigDecimal.mode(::BigDecimal::ROUND_MODE) == ::BigDecimal::ROUND_HALF_UP, time_string_rules]
        end

        # How ActiveModel reads a time String on this Ruby, found once by
        # casting the probes: TIME_STRINGS_REGEX (its ISO_DATETIME and
        # new_time, Ruby < 3.2), TIME_STRINGS_TIME_NEW (Time.new(string),
        # Ruby >= 3.2), or TIME_STRINGS_UNKNOWN when the casts give what
        # neither would (a patched ActiveModel, a Ruby with other rules):
        # the native side then leaves every time String to the readers.
        def time_string_rules
          @time_string_rules ||= probe_time_strings
        end

        # ActiveSupport::JSON.decode is ActiveSupport's, on the json gem's
        # JSON.parse (Oj.mimic_JSON replaces it); answered for the native
        # side's memo (Jetson::Rails.memo_answer) with the two methods.
        def json_decode_answer
          decode = ::ActiveSupport::JSON.method(:decode).source_location&.first.to_s
          parse = ::JSON.method(:parse).source_location&.first.to_s
          [%r{/active_support/json/}.match?(decode) && %r{/json/common\.rb\z}.match?(parse),
           [[::ActiveSupport::JSON.singleton_class, :decode], [::JSON.singleton_class, :parse]]]
        end

        # The zone's period at seconds since the epoch:
        # [starts_at or nil, ends_at or nil, observed UTC offset, whether a
        # TimeWithZone in it is utc? (abbreviation UTC or UCT)], or nil when
        # the zone is not ActiveSupport's.
        def zone_period(zone, seconds)
          return nil unless zone.instance_of?(::ActiveSupport::TimeZone)

          period = zone.period_for_utc(::Time.at(seconds).utc)
          abbreviation = period.abbreviation
          [period.starts_at&.value, period.ends_at&.value, period.observed_utc_offset,
           abbreviation == "UTC" || abbreviation == "UCT"]
        end

        # Every period of the zone from 1900 to 2100, flat and in order:
        # [from, to, observed UTC offset, 1 when utc? else 0, ...] (from of the
        # first and to of the last are the table's ends); nil when the zone is
        # not ActiveSupport's. Made once per zone: the native side looks an
        # instant up in it instead of asking zone_period for each new period.
        def zone_table(zone)
          return nil unless zone.instance_of?(::ActiveSupport::TimeZone)

          tzinfo = zone.tzinfo
          @zone_tables[tzinfo.identifier] ||= begin
            first = ZONE_TABLE_RANGE.first
            last = ZONE_TABLE_RANGE.last
            period = tzinfo.period_for_utc(::Time.at(first).utc)
            table = []
            from = first
            tzinfo.transitions_up_to(::Time.at(last).utc, ::Time.at(first).utc).each do |transition|
              table.push(from, transition.at.value, *period_fields(period.offset))
              from = transition.at.value
              period = transition
            end
            table.push(from, last, *period_fields(period.offset)) # a period, or the last transition
            table.freeze
          end
        end

        # The system's local offset at seconds, and how far it holds:
        # [from, to, offset], the hour around seconds when the offset does not
        # change inside it, else just that second.
        def local_period(seconds)
          from = seconds - (seconds % 3600)
          offset = ::Time.at(seconds).utc_offset
          if ::Time.at(from).utc_offset == offset && ::Time.at(from + 3599).utc_offset == offset
            [from, from + 3600, offset]
          else
            [seconds, seconds + 1, offset]
          end
        end

        # Time.local of a civil hour, as the shift from that civil time read
        # as UTC to the instant Time.local gives (the same for the whole
        # hour), or nil when it changes inside the hour.
        def local_shift(year, month, day, hour)
          first = ::Time.local(year, month, day, hour, 0, 0)
          last = ::Time.local(year, month, day, hour, 59, 59)
          start = ::Time.utc(year, month, day, hour, 0, 0)
          shift = start.to_i - first.to_i
          shift == (start.to_i + 3599) - last.to_i ? shift : nil
        rescue ArgumentError, RangeError
          nil
        end

        private

        def probe_time_strings
          types = { datetime: ::ActiveRecord::Type::DateTime, time: ::ActiveRecord::Type::Time }
          results = TIME_STRING_PROBES.map do |type, timezone, string, *|
            time = types.fetch(type).new(timezone: timezone).cast(string)
            return TIME_STRINGS_UNKNOWN unless time.instance_of?(::Time)

            # A local Time has its zone's name; one at a fixed offset has none.
            [time.to_i, time.nsec, time.utc?, !time.utc? && time.zone ? :local : time.utc_offset]
          end
          if results == TIME_STRING_PROBES.map { |probe| probe[3] }
            TIME_STRINGS_REGEX
          elsif results == TIME_STRING_PROBES.map { |probe| probe[4] }
            TIME_STRINGS_TIME_NEW
          else
            TIME_STRINGS_UNKNOWN
          end
        rescue StandardError
          TIME_STRINGS_UNKNOWN
        end

        def describe(type)
          found = describe_cast(type)
          found && (found + [type]).freeze
        end

        def describe_cast(type)
          zone_aware = false
          if type.instance_of?(::ActiveRecord::AttributeMethods::TimeZoneConversion::TimeZoneConverter)
            return nil unless stock_converter?

            zone_aware = true
            type = type.__getobj__
          end
          if type.instance_of?(::ActiveRecord::Enum::EnumType)
            return describe_enum(type)
          end

          kind = type_classes[type.class]
          return nil unless kind
          return nil if zone_aware && ![KIND_DATETIME, KIND_TIME, KIND_TIMESTAMPTZ].include?(kind)

          if zone_aware && kind == KIND_TIME
            rule = zone_time_rule
            return nil unless rule

            zone_aware = :time_of_day if rule == :time_of_day
          end

          scale = nil
          if kind == KIND_DECIMAL
            scale = type.scale
            # A negative scale rounds to tens, hundreds...: left to Ruby.
            return nil if scale && !(0..1000).cover?(scale)
          end
          precision = time_kind?(kind) ? type.precision : nil
          return nil if precision && !(0..9).cover?(precision)

          timezone = time_kind?(kind) ? type.instance_variable_get(:@timezone) : nil
          return nil unless [nil, :utc, :local].include?(timezone)

          [kind, precision || -1, scale, zone_aware, timezone, nil, 0]
        end

        def period_fields(offset)
          abbreviation = offset.abbreviation
          [offset.observed_utc_offset, abbreviation == "UTC" || abbreviation == "UCT" ? 1 : 0]
        end

        def time_kind?(kind)
          [KIND_DATETIME, KIND_TIME, KIND_TIMESTAMPTZ].include?(kind)
        end

        # An enum: its database values (all Integers, or all Strings, as its
        # subtype gives them) to their labels, the first label of a value
        # winning as in mapping.key.
        def describe_enum(type)
          return nil unless stock_enum?

          subtype = type.subtype
          subkind = type_classes[subtype.class]
          return nil unless [KIND_INTEGER, KIND_STRING].include?(subkind)

          value_class = subkind == KIND_INTEGER ? ::Integer : ::String
          labels = {}
          type.send(:mapping).each do |label, value|
            return nil unless value.is_a?(value_class) && label.is_a?(::String)

            labels[value.frozen? ? value : value.dup.freeze] = label unless labels.key?(value)
          end
          [KIND_ENUM, -1, nil, false, nil, labels.freeze, subkind]
        end

        # What the loaded ActiveRecord's time zone conversion makes of a time
        # column's value, found once by deserializing one: :in_zone (7.2:
        # in_time_zone, so 05:00 UTC is 1999-12-31 19:00 in Hawaii),
        # :time_of_day (8.0 on: then change(year: 2000, month: 1, day: 1),
        # 2000-01-01 19:00), or nil for anything else (zone aware time columns
        # are then left to their readers).
        def zone_time_rule
          return @zone_time_rule if defined?(@zone_time_rule)

          @zone_time_rule = probe_zone_time
        end

        def probe_zone_time
          converter = ::ActiveRecord::AttributeMethods::TimeZoneConversion::TimeZoneConverter
          type = converter.new(::ActiveRecord::Type::Time.new(timezone: :utc))
          time = ::Time.use_zone("Hawaii") { type.deserialize("05:00:00.5") }
          return nil unless time.instance_of?(::ActiveSupport::TimeWithZone) && time.utc_offset == -36_000

          shown = [time.year, time.month, time.day, time.hour, time.min, time.sec, time.nsec]
          if shown == [1999, 12, 31, 19, 0, 0, 500_000_000]
            :in_zone
          elsif shown == [2000, 1, 1, 19, 0, 0, 500_000_000]
            :time_of_day
          end
        rescue StandardError
          nil
        end

        def stock_converter?
          return @stock_converter unless @stock_converter.nil?

          converter = ::ActiveRecord::AttributeMethods::TimeZoneConversion::TimeZoneConverter
          @stock_converter = converter.instance_method(:deserialize).owner.equal?(converter) &&
                             stock_type_class?(converter)
        end

        def stock_enum?
          return @stock_enum unless @stock_enum.nil?

          enum = ::ActiveRecord::Enum::EnumType
          @stock_enum = enum.instance_method(:deserialize).owner.equal?(enum) && stock_type_class?(enum)
        end
      end
    end
  end
end
