# frozen_string_literal: true

require "tmpdir"
require "active_record"
require_relative "../database_servers"

module Kit
  module StreamingApp
    # The orders tables of Kit::StreamingApp, made and filled in one SQL
    # statement per table (SQLite's recursive CTE, PostgreSQL's generate_series),
    # so that a million rows take seconds. Values vary by row: text that
    # ActiveSupport escapes (<, >, &, U+2028), non-ASCII, NULLs, decimals,
    # microseconds.
    module Database
      module_function

      # A SQLite database file in a temporary directory: its config Hash.
      # mmap: false turns off the memory map Rails 7.1+ asks SQLite for (the
      # mmap_size pragma, 128 MB): the database file's pages it reads are then
      # not mapped into the process, where they count in its RSS (a 70 MB file
      # read once through is +67 MB of VmHWM, all of it RssFile, shared with the
      # OS's page cache; what the process allocates itself grew by 13 MB).
      def sqlite(dir, mmap: true)
        config = { "adapter" => "sqlite3", "database" => File.join(dir, "streaming.sqlite3"), "pool" => 8, "timeout" => 5000 }
        config["pragmas"] = { "mmap_size" => 0 } unless mmap
        config
      end

      # The kit's PostgreSQL server (Kit::DatabaseServers), or nil (printed reason).
      def postgresql
        config = DatabaseServers.available(:postgresql) or return nil
        config.transform_keys(&:to_s).merge("pool" => 8)
      end

      # (Re)creates table with rows 1..count.
      def fill(config, table, count)
        with_connection(config) do |conn|
          conn.drop_table(table, if_exists: true)
          conn.create_table(table) do |t|
            t.string :number
            t.decimal :total, precision: 10, scale: 2
            t.datetime :placed_at, precision: 6
            t.string :status
            t.text :note
          end
          conn.execute(insert_sql(conn.adapter_name, table, count))
          conn.execute("ANALYZE #{table}") if conn.adapter_name == "PostgreSQL"
        end
      end

      def drop(config, table)
        with_connection(config) { |conn| conn.drop_table(table, if_exists: true) }
      end

      # A class of its own, so the test process's connection is apart from any other.
      class SetupRecord < ActiveRecord::Base
        self.abstract_class = true
      end

      def with_connection(config)
        SetupRecord.establish_connection(config.transform_keys(&:to_sym))
        SetupRecord.connection_pool.with_connection { |conn| yield conn }
      ensure
        SetupRecord.remove_connection
      end

      def insert_sql(adapter, table, count)
        note = "CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN 'plain note ' || i " \
               "WHEN i % 5 = 2 THEN '<b>bold</b> & \"quoted\" ' || i WHEN i % 5 = 3 THEN 'caf' || #{e_acute(adapter)} || ' ' || i " \
               "ELSE 'line' || #{separator(adapter)} || 'sep ' || i END"
        status = "CASE i % 3 WHEN 0 THEN 'paid' WHEN 1 THEN 'open' ELSE NULL END"
        if adapter == "PostgreSQL"
          "INSERT INTO #{table} (id, number, total, placed_at, status, note) " \
            "SELECT i, 'N-' || i, (i % 100000) / 100.0, TIMESTAMP '2024-01-01 00:00:00' + i * INTERVAL '1.000123 second', " \
            "#{status}, #{note} FROM generate_series(1, #{Integer(count)}) AS s(i)"
        else
          "WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < #{Integer(count)}) " \
            "INSERT INTO #{table} (id, number, total, placed_at, status, note) " \
            "SELECT i, 'N-' || i, (i % 100000) / 100.0, strftime('%Y-%m-%d %H:%M:%f', 1704067200 + i * 1.000123, 'unixepoch'), " \
            "#{status}, #{note} FROM seq"
        end
      end

      def e_acute(adapter) = adapter == "PostgreSQL" ? "chr(233)" : "char(233)"
      def separator(adapter) = adapter == "PostgreSQL" ? "chr(8232)" : "char(8232)"
    end
  end
end
