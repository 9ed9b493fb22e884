# frozen_string_literal: true

require "test_helper"
require "jetson/rails/record_cache_keys"
require "jetson/views/fragment_cache"
require "support/record_tests"

# A cached collection's records' cache_key and cache_version, made by
# Jetson::Rails::RecordCacheKeys without ActiveRecord's per-call work,
# against ActiveRecord's own on every adapter: the seeded random rows of
# every model, and records in the states where ActiveRecord's fast path
# does not apply (Jetson must then leave the answer to ActiveRecord: nil).
class RecordsCacheKeysTest < Minitest::Test
  include RecordTests

  # object.name = value for the block.
  def with_setting(object, name, value)
    saved = object.public_send(name)
    object.public_send("#{name}=", value)
    yield
  ensure
    object.public_send("#{name}=", saved)
  end

  # cache_versioning (Rails' default since 5.2) on, on ActiveRecord::Base as an app's config does.
  def with_versioning(value = true, &block)
    with_setting(ActiveRecord::Base, :cache_versioning, value, &block)
  end

  def models(world)
    world.models.values.flat_map(&:values).select { |klass| klass.column_names.include?("updated_at") }
  end

  # Every answer Jetson gives is ActiveRecord's; returns how many it gave.
  def assert_activerecords(records, label)
    keys = Jetson::Rails::RecordCacheKeys.new
    records.count do |record|
      made = keys.for(record)
      next false unless made

      assert_equal [record.cache_key, record.cache_version], made, "#{label}: #{record.class} #{record.id}"
      true
    end
  end

  # Whether ActiveModel built the record's updated_at Attribute (the Ruby
  # path does; the native reader reads the raw value without).
  def built?(record)
    record.instance_variable_get(:@attributes).instance_variable_get(:@attributes).key?("updated_at")
  end

  RecordMatrix::ADAPTERS.each do |adapter|
    # Every stock model's rows take Jetson's path: a String raw updated_at
    # (sqlite3) through ActiveRecord's fast path, a Time (pg, mysql2 and
    # trilogy decode it) through the cast's instant. Read natively first;
    # then again once ActiveRecord has built each record's updated_at
    # Attribute (its own cache_version does), where the Ruby path answers.
    define_method("test_#{adapter}_random_rows") do
      w = world_of(adapter)
      with_versioning do
        models(w).each do |klass|
          records = klass.order(klass.primary_key).to_a
          next if records.empty?

          made = Jetson::Rails::RecordCacheKeys.new.then { |keys| records.map { keys.for(_1) } }
          refute records.any? { built?(_1) }, "#{adapter} #{klass.name}: the native reader built an Attribute"
          records.zip(made).each do |record, key|
            assert_equal [record.cache_key, record.cache_version], key, "#{adapter} #{klass.name} #{record.id}" if key
          end
          native = made.count(&:itself)
          assert_operator native, :>, 0, "#{adapter} #{klass.name}: no record took the path"
          records.each(&:updated_at_before_type_cast)
          built = assert_activerecords(records, "#{adapter} #{klass.name}, attributes built")
          assert_equal native, built, "#{adapter} #{klass.name}: the Ruby path takes the same records"
        end
      end
    end

    # A Time raw whose cast would drop digits (more than the type's
    # precision) or that is not UTC, as a query's rows could hand over:
    # ActiveRecord answers the first; the second is the same instant. Years
    # around the native formatter's range and a format other than :usec.
    define_method("test_#{adapter}_time_raws") do
      w = world_of(adapter)
      klass = w.model(:comment) # updated_at precision 3
      with_versioning do
        keys = Jetson::Rails::RecordCacheKeys.new
        row = klass.order(:id).first
        refute_nil row
        fine = klass.instantiate(row.attributes_before_type_cast.merge("updated_at" => Time.utc(2026, 3, 4, 5, 6, 7, 123_456)))
        utc = keys.for(fine)
        if adapter == "sqlite3"
          assert_nil utc, "a Time raw where sqlite3 hands over Strings: ActiveRecord answers"
        else
          assert_nil utc, "sub-millisecond digits on a precision-3 column"
          shifted = Time.new(2026, 3, 4, 7, 6, 7.125r, "+02:00")
          record = klass.instantiate(row.attributes_before_type_cast.merge("updated_at" => shifted))
          assert_equal [record.cache_key, record.cache_version], keys.for(record), "a Time raw at +02:00"
          assert_equal "20260304050607125000", record.cache_version
          # Years at the edge of the native formatter's (1000-9999), another cache_timestamp_format.
          [Time.utc(999, 1, 2, 3, 4, 5.5r), Time.utc(1000, 12, 31, 23, 59, 59)].each do |at|
            old = klass.instantiate(row.attributes_before_type_cast.merge("updated_at" => at))
            assert_equal [old.cache_key, old.cache_version], keys.for(old), at.inspect
          end
          with_setting(klass, :cache_timestamp_format, :number) do
            assert_equal [row.cache_key, row.cache_version], Jetson::Rails::RecordCacheKeys.new.for(row), ":number"
          end
        end
      end
    end

    define_method("test_#{adapter}_records_activerecord_answers") do
      w = world_of(adapter)
      klass = w.model(:article)
      with_versioning do
        records = klass.order(:id).limit(5).to_a
        refute_empty records
        keys = Jetson::Rails::RecordCacheKeys.new
        assigned = records[0].tap { |r| r.updated_at = Time.utc(2030, 1, 2, 3, 4, 5) }
        assert_nil keys.for(assigned), "updated_at assigned in memory"
        assert_nil keys.for(klass.new(title: "new")), "a new record"
        assert_nil keys.for(klass.select(:id, :title).order(:id).first), "updated_at not selected"
        assert_activerecords(records, "#{adapter} after the fallbacks")
      end
    end
  end

  def test_the_classes_settings_decide
    w = world_of("sqlite3")
    klass = w.model(:comment)
    record = klass.order(:id).first
    refute_nil record
    made = -> { Jetson::Rails::RecordCacheKeys.new.for(record) }
    with_versioning(false) { assert_nil made.call, "versioning off" }
    with_versioning do
      assert_equal [record.cache_key, record.cache_version], made.call, "the stock settings"
      with_setting(klass, :cache_timestamp_format, :number) { assert_nil made.call, "cache_timestamp_format :number" }
      with_setting(ActiveRecord, :default_timezone, :local) { assert_nil made.call, "default_timezone :local" }
    end
  end

  # cache! keys: records in them (the key itself, or in Arrays at any depth)
  # answered by RecordCacheKeys expand into the String ActiveSupport makes
  # of the records themselves.
  def test_cache_bang_keys_expand_as_activesupports
    w = world_of("sqlite3")
    klass = w.model(:comment)
    records = klass.order(:id).limit(3).to_a
    assert_equal 3, records.size
    with_versioning do
      cache = Jetson::Views::FragmentCache.new(nil)
      keys = [records[0], ["v1", records[0]], ["v2", [records[1], :x, 3, nil], records[2]], "plain", ["v3", nil, 1.5],
              [klass.new(body: "new")], [records[1].tap { |r| r.updated_at = Time.utc(2031, 1, 1) }],
              { controller: "posts" }, [w.model(:sample).order(:id).first]]
      keys.each do |key|
        assert_equal ActiveSupport::Cache.expand_cache_key(key, :jbuilder),
                     ActiveSupport::Cache.expand_cache_key(cache.send(:with_record_keys, key), :jbuilder), key.inspect
      end
      assert_kind_of Jetson::Views::FragmentCache::RecordKey, cache.send(:with_record_keys, records[0])
    end
  end

  # A model with a cache_version (or cache_key) of its own, as ActiveRecord's
  # docs invite: ActiveRecord answers.
  def test_a_model_with_its_own_cache_version
    w = world_of("sqlite3")
    base = w.model(:comment)
    own_version = named_subclass(base, "OwnVersionComment") do
      def cache_version = "v#{id}"
    end
    own_key = named_subclass(base, "OwnKeyComment") do
      def cache_key = "comment-#{id}"
    end
    with_versioning do
      [own_version, own_key].each do |klass|
        record = klass.order(:id).first
        assert_nil Jetson::Rails::RecordCacheKeys.new.for(record), klass.name
      end
      assert Jetson::Rails::RecordCacheKeys.new.for(base.order(:id).first), "the stock model takes the path"
    end
  end
end
