# frozen_string_literal: true

require "jetson/rails"

module Jetson
  module Rails
    # ActiveRecord's cache_key and cache_version of the records of a cached
    # collection (CollectionKeys) or in a cache! key (FragmentCache), made
    # the way ActiveRecord makes them from the raw updated_at
    # (Integration#cache_version's fast path), with what that path asks of
    # the class settled once per collection or render: cache_versioning,
    # cache_timestamp_format :usec, and the connection's default timezone,
    # which ActiveRecord reads by checking a connection out of the pool on
    # every call (cache_key calls cache_version again, so twice a record).
    # That was about 4.4 µs a record (100 fresh posts: 700 µs of keys above
    # the load, 260 µs here): what kept bench/views.rb's warm cached request
    # at its reads floor.
    #
    # Taken only for classes whose methods on that path are ActiveRecord's
    # and ActiveModel's own (a model with its own cache_key, cache_version,
    # updated_at_before_type_cast, id... goes to ActiveRecord), and per
    # record only where ActiveRecord's fast path would be: persisted, with
    # updated_at loaded, a String raw value not assigned in memory.
    # Everything else is answered by ActiveRecord itself (nil here).
    #
    # @api private
    class RecordCacheKeys
      # What ActiveRecord's cache_key, cache_version and
      # cache_key_with_version call on this path.
      METHODS = %i[cache_key cache_version cache_key_with_version can_use_fast_cache_version?
                   raw_timestamp_to_cache_version new_record? has_attribute? id model_name
                   updated_at_before_type_cast updated_at_came_from_user?].freeze
      private_constant :METHODS

      def initialize
        @models = {}.compare_by_identity
      end

      # [cache_key, cache_version] as ActiveRecord gives them, or nil when
      # ActiveRecord has to be asked.
      def for(record)
        return nil unless defined?(::ActiveRecord::Base) && ::ActiveRecord::Base === record

        klass = record.class
        model_key = @models.key?(klass) ? @models[klass] : (@models[klass] = model_key(klass))
        return nil unless model_key
        return nil if record.new_record? || !record.has_attribute?("updated_at")

        timestamp = record.updated_at_before_type_cast
        return nil unless ::String === timestamp && !record.updated_at_came_from_user?

        # Integration#raw_timestamp_to_cache_version
        version = timestamp.delete("- :.")
        version = version.ljust(20, "0") if version.length < 20
        ["#{model_key}/#{record.id}", version]
      end

      private

      # The class's model_name.cache_key when its records can take this path,
      # else false.
      def model_key(klass)
        return false unless METHODS.all? { |name| ::Jetson::Rails.stock_definition?(klass.instance_method(name)) }
        return false unless klass.cache_versioning && klass.cache_timestamp_format == :usec &&
                            klass.with_connection(&:default_timezone) == :utc

        klass.model_name.cache_key
      rescue ::NameError
        false
      end
    end
  end
end
