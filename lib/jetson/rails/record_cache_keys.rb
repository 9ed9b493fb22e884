# frozen_string_literal: true

require "jetson/rails/rails"
require "jetson/rails/db_cast"

module Jetson
  module Rails
    # ActiveRecord's cache_key and cache_version of the records of a cached
    # collection (CollectionKeys) or in a cache! key (FragmentCache), made
    # from the raw updated_at the way ActiveRecord's Integration makes them,
    # with what that asks of the class settled once per collection or
    # render: cache_versioning, cache_timestamp_format, the connection's
    # default timezone (which ActiveRecord reads by checking a connection out
    # of the pool on every call; cache_key calls cache_version again, so
    # twice a record), the updated_at type.
    #
    # Two raw forms, as the adapters hand updated_at over:
    # - a String (sqlite3): ActiveRecord's fast path,
    #   raw_timestamp_to_cache_version, under :usec and a UTC default
    #   timezone.
    # - a Time (pg, mysql2, trilogy decode it): ActiveRecord casts it
    #   (updated_at, a TimeWithZone where time zone aware) and formats the
    #   cast's UTC instant with to_fs(cache_timestamp_format). The stock
    #   datetime types' cast of a Time keeps its instant, truncated to the
    #   type's precision (apply_seconds_precision), so the version is the
    #   raw's UTC instant under the same strftime format, taken only where
    #   that truncation removes nothing.
    # The raw values and the id are read natively where nothing has built
    # or assigned them (ext/jetson/rails/record_cache_keys.c, which also holds the
    # version rule both paths use): about 6-7 µs a record in ActiveRecord,
    # 0.9-1.4 µs here (bench/cache_keys.rb).
    #
    # Taken only for classes whose methods on these paths are ActiveRecord's
    # and ActiveModel's own (a model with its own cache_key, cache_version,
    # updated_at, id... goes to ActiveRecord), and per record only where
    # ActiveRecord would take the same path: persisted, updated_at loaded and
    # not assigned in memory. Everything else is answered by ActiveRecord
    # itself (nil here).
    #
    # @api private
    class RecordCacheKeys
      # What ActiveRecord's cache_key, cache_version and
      # cache_key_with_version call on these paths, and what stands behind a
      # Time raw's version (updated_at.utc.to_fs).
      METHODS = %i[cache_key cache_version cache_key_with_version can_use_fast_cache_version?
                   raw_timestamp_to_cache_version new_record? has_attribute? id model_name
                   updated_at_before_type_cast updated_at_came_from_user? _read_attribute].freeze
      TIME_METHODS = %i[to_fs strftime utc? getutc].freeze
      private_constant :METHODS, :TIME_METHODS

      # What a class's records take (ext/jetson/rails/record_cache_keys.c reads
      # its members in this order): model_key, its model_name.cache_key;
      # strings, whether String raws take ActiveRecord's fast path;
      # time_format, the strftime format of a Time raw's version (nil: left
      # to ActiveRecord); unit, the nanoseconds the type's precision keeps a
      # multiple of; primary_key, its name where the native reader may read
      # the id (else nil); integer_id, whether its type is a stock integer
      # one (an Integer raw is then the id).
      Plan = Struct.new(:model_key, :strings, :time_format, :unit, :primary_key, :integer_id)
      private_constant :Plan

      class << self
        # Jetson::Rails.memo_answer's for a class: [[whether METHODS are
        # ActiveRecord's and ActiveModel's, whether updated_at is
        # ActiveRecord's generated reader and Time's formatting stock], the
        # methods that rests on]. The native memo keeps it until one of them
        # is defined again (asked through stock_class).
        def stock_answer(klass)
          methods = METHODS.all? { |name| stock?(klass.instance_method(name)) }
          time = ::Jetson::Rails.attribute_reader(klass, "updated_at") == :generated &&
                 TIME_METHODS.all? { |name| stock?(::Time.instance_method(name)) }
          deps = (METHODS + %i[updated_at]).map { [klass, _1] } + TIME_METHODS.map { [::Time, _1] }
          [[methods, time].freeze, deps]
        rescue ::NameError
          [[false, false].freeze, []]
        end

        def stock?(method) = ::Jetson::Rails.stock_definition?(method)
      end

      def initialize
        @plans = {}.compare_by_identity
      end

      # [cache_key, cache_version] as ActiveRecord gives them, or nil when
      # ActiveRecord has to be asked.
      def for(record)
        return nil unless defined?(::ActiveRecord::Base) && ::ActiveRecord::Base === record

        klass = record.class
        plan = @plans.key?(klass) ? @plans[klass] : (@plans[klass] = plan(klass))
        return nil unless plan

        native_key(record, plan) || ruby_key(record, plan)
      end

      private

      # What the native reader leaves (records whose attributes were built
      # or assigned, ids it does not read): the raw value and the id through
      # ActiveRecord's readers, the version by the native rule
      # (native_version).
      def ruby_key(record, plan)
        return nil if record.new_record? || !record.has_attribute?("updated_at")

        version = native_version(record.updated_at_before_type_cast, plan)
        return nil unless version && !record.updated_at_came_from_user?

        ["#{plan.model_key}/#{record.id}", version]
      end

      # The class's Plan, or false when its records are ActiveRecord's to
      # answer. What rests on methods comes from the native memo; the
      # settings are read for every collection (or render).
      def plan(klass)
        methods, time = self.class.stock_class(klass)
        return false unless methods && klass.cache_versioning

        format = klass.cache_timestamp_format
        strings = format == :usec && klass.with_connection(&:default_timezone) == :utc
        time_format, unit = time_format(klass, format) if time
        return false unless strings || time_format

        Plan.new(klass.model_name.cache_key, strings, time_format, unit || 1, *primary_key(klass)).freeze
      rescue ::NameError
        false
      end

      # [strftime format, unit] of the cast ActiveRecord makes of a Time raw
      # (updated_at.utc.to_fs(format)) where the type is a stock datetime one
      # and the format a String in Time::DATE_FORMATS (Rails main: where
      # to_fs looks it up, ActiveSupport::TimeFormats); else nil.
      def time_format(klass, format)
        kind, precision = DbCast.descriptor(klass.attribute_types["updated_at"])
        return nil unless [DbCast::KIND_DATETIME, DbCast::KIND_TIMESTAMPTZ].include?(kind)

        text = time_format_text(format)
        return nil unless ::String === text

        [text.dup.freeze, precision.between?(0, 8) ? 10**(9 - precision) : 1]
      end

      # What Time#to_fs(format) formats with: Rails main deprecates
      # Time::DATE_FORMATS (which it keeps beside its formats, for apps that
      # still add theirs there) and looks formats up in
      # ActiveSupport::TimeFormats.
      def time_format_text(format)
        formats = ::ActiveSupport::TimeFormats if defined?(::ActiveSupport::TimeFormats)
        formats.respond_to?(:lookup) ? formats.lookup(format) : ::Time::DATE_FORMATS[format]
      end

      # [the primary key, whether its type is an integer one] where the
      # native reader may read the id: id (stock: METHODS) is PrimaryKey#id,
      # _read_attribute(@primary_key), of a single, unaliased key.
      def primary_key(klass)
        key = klass.primary_key
        return [nil, false] unless ::String === key && !klass.attribute_aliases.key?(key)

        [key, DbCast.descriptor(klass.attribute_types[key]).first == DbCast::KIND_INTEGER]
      end
    end
  end
end
