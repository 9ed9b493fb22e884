# frozen_string_literal: true

# What a cached collection's keys cost per record: ActiveRecord's own
# cache_key and cache_version (what ActiveSupport's store asks of each
# record of `cached: true`) against Jetson::Rails::RecordCacheKeys, on 100
# freshly loaded records, on every adapter this machine can run (sqlite3
# hands updated_at over as a String, pg/mysql2/trilogy as a Time).
#
#   bundle exec ruby --yjit bench/cache_keys.rb [--rounds=N] [--no-write]
#
# Per round and adapter, one slice per contender, the order rotated every
# round, GC.start before each slice; every slice loads fresh records before
# its clock starts (a record's keys are made once: ActiveRecord caches the
# cast). Contenders: ActiveRecord (cache_key, cache_version of each record),
# Jetson (one RecordCacheKeys for the collection, as CollectionKeys makes,
# its plan included). Jetson's keys are checked against ActiveRecord's first.
# Results: bench/results/cache-keys.md.

$stdout.sync = true
require_relative "support/setup"
require_relative "support/report"
require "tmpdir"
require "active_record"
require "jetson/rails/record_cache_keys"
require_relative "../kit/database_servers"

module CacheKeysBench
  module_function

  RECORDS = 100
  SETS = 40 # collections a slice makes keys for

  CONTENDERS = {
    "ActiveRecord" => ->(records) { records.each { |r| r.cache_key && r.cache_version } },
    "Jetson" => lambda do |records|
      keys = Jetson::Rails::RecordCacheKeys.new
      records.each { |r| keys.for(r) || raise("not taken: #{r.class} #{r.id}") }
    end
  }.freeze

  def databases(tmp)
    list = [["sqlite3", { adapter: "sqlite3", database: File.join(tmp, "keys.sqlite3") }]]
    pg = Kit::DatabaseServers.available(:postgresql)
    list << ["postgresql", pg] if pg
    maria = Kit::DatabaseServers.available(:mariadb)
    if maria
      require "mysql2"
      client = Mysql2::Client.new(host: maria[:host], port: maria[:port], username: maria[:username])
      client.query("CREATE DATABASE IF NOT EXISTS jetson_keys")
      client.close
      %w[mysql2 trilogy].each { |adapter| list << [adapter, maria.merge(adapter: adapter, database: "jetson_keys")] }
    end
    list
  end

  def model(adapter, config)
    base = Class.new(ActiveRecord::Base) { self.abstract_class = true }
    Object.const_set("KeysBase#{adapter.capitalize}", base)
    base.establish_connection(config)
    base.connection.create_table(:posts, force: true) do |t|
      t.string :title
      t.timestamps precision: 6
    end
    post = Class.new(base) { self.table_name = "posts" }
    Object.const_set("KeysPost#{adapter.capitalize}", post)
    start = Time.utc(2026, 1, 1)
    rows = Array.new(RECORDS) do |i|
      at = start + (i * 3607) + Rational(i * 7919 % 1_000_000, 1_000_000)
      { title: "post #{i}", created_at: at, updated_at: at }
    end
    post.insert_all!(rows)
    post
  end

  def check(klass)
    records = klass.order(:id).to_a
    keys = Jetson::Rails::RecordCacheKeys.new
    records.each do |r|
      made = keys.for(r)
      expected = [r.cache_key, r.cache_version]
      raise "#{klass.name} #{r.id}: Jetson #{made.inspect}, ActiveRecord #{expected.inspect}" unless made == expected
    end
    [records.first.updated_at_before_type_cast.class, records.first.cache_version]
  end

  # µs per record of name's keys over SETS fresh collections.
  def slice(klass, contender)
    sets = Array.new(SETS) { klass.order(:id).to_a }
    GC.start
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    sets.each { |records| contender.call(records) }
    (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1e6 / (SETS * RECORDS)
  end

  def allocations(klass, contender)
    sets = Array.new(SETS) { klass.order(:id).to_a }
    before = GC.stat(:total_allocated_objects)
    sets.each { |records| contender.call(records) }
    (GC.stat(:total_allocated_objects) - before).fdiv(SETS * RECORDS)
  end

  def run(argv)
    rounds = Integer(argv.find { _1.start_with?("--rounds=") }&.split("=", 2)&.last || 15)
    ActiveRecord::Base.cache_versioning = true
    ActiveRecord::Base.logger = nil
    tmp = Dir.mktmpdir("jetson-cache-keys")
    results = databases(tmp).map do |adapter, config|
      klass = model(adapter, config)
      raw, sample = check(klass)
      CONTENDERS.each_value { |c| 3.times { slice(klass, c) } }
      times = CONTENDERS.transform_values { [] }
      rounds.times { |r| CONTENDERS.keys.rotate(r).each { |name| times[name] << slice(klass, CONTENDERS[name]) } }
      allocs = CONTENDERS.transform_values { allocations(klass, _1) }
      puts "#{adapter}: done"
      { adapter: adapter, raw: raw, sample: sample, times: times, allocs: allocs }
    end
    command = "bundle exec ruby#{RubyVM::YJIT.enabled? ? ' --yjit' : ''} bench/cache_keys.rb #{argv.join(' ')}".strip
    JetsonBench::Report.publish(report(results, rounds, command), "cache-keys.md", argv)
  end

  def report(results, rounds, command)
    out = +JetsonBench::Report.head("A cached collection's keys: ActiveRecord vs Jetson::Rails::RecordCacheKeys", command)
    out << "- **Gems**: #{%w[activerecord sqlite3 pg mysql2 trilogy].map { "#{_1} #{Gem.loaded_specs[_1]&.version}" }.join(', ')}\n"
    out << "- #{RECORDS} fresh records a collection (id, title, timestamps precision 6), #{SETS} collections a slice, " \
           "#{rounds} rounds; µs per record, median of the rounds; ratio: per round, median (min-max)\n\n"
    out << "| adapter | raw updated_at | ActiveRecord µs/record | Jetson µs/record | ActiveRecord ÷ Jetson | objects/record AR / Jetson |\n"
    out << "| :--- | :--- | ---: | ---: | ---: | ---: |\n"
    results.each do |r|
      ar = r[:times]["ActiveRecord"]
      js = r[:times]["Jetson"]
      ratios = ar.zip(js).map { |a, j| a / j }.sort
      out << format("| %s | %s | %.2f | %.2f | %.2f× (%.2f–%.2f) | %.1f / %.1f |\n", r[:adapter], r[:raw],
                    JetsonBench::Stats.median(ar), JetsonBench::Stats.median(js), JetsonBench::Stats.median(ratios),
                    ratios.first, ratios.last,
                    r[:allocs]["ActiveRecord"], r[:allocs]["Jetson"])
    end
    out << "\nEvery record's [cache_key, cache_version] from Jetson was checked equal to ActiveRecord's before timing " \
           "(e.g. #{results.first[:sample]}).\n"
    out
  end
end

CacheKeysBench.run(ARGV) if $PROGRAM_NAME == __FILE__
