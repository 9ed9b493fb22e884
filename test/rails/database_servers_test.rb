# frozen_string_literal: true

require "test_helper"
require "bigdecimal"
require "active_record"
require_relative "../../kit/collection"
require_relative "../../kit/database_servers"

# The PostgreSQL and MariaDB servers of kit/database_servers.rb take a row
# through ActiveRecord and back, on each adapter apps use (pg, mysql2,
# trilogy). Each adapter connects through an abstract class of its own, so
# ActiveRecord::Base keeps the sqlite3 database the other Rails tests in this
# process share.
class DatabaseServersTest < Minitest::Test
  class PgRecord < ActiveRecord::Base
    self.abstract_class = true
  end

  class PgWidget < PgRecord
    self.table_name = "widgets"
  end

  class Mysql2Record < ActiveRecord::Base
    self.abstract_class = true
  end

  class Mysql2Widget < Mysql2Record
    self.table_name = "widgets_mysql2"
  end

  class TrilogyRecord < ActiveRecord::Base
    self.abstract_class = true
  end

  class TrilogyWidget < TrilogyRecord
    self.table_name = "widgets_trilogy"
  end

  def test_postgresql
    config = Kit::DatabaseServers.available(:postgresql) or skip Kit::DatabaseServers.reason(:postgresql)
    round_trip(PgRecord, PgWidget, config, "PostgreSQL")
  end

  def test_mariadb_with_mysql2
    config = Kit::DatabaseServers.available(:mariadb) or skip Kit::DatabaseServers.reason(:mariadb)
    round_trip(Mysql2Record, Mysql2Widget, config, "Mysql2")
  end

  def test_mariadb_with_trilogy
    config = Kit::DatabaseServers.available(:mariadb) or skip Kit::DatabaseServers.reason(:mariadb)
    round_trip(TrilogyRecord, TrilogyWidget, config.merge(adapter: "trilogy"), "Trilogy")
  end

  private

  def round_trip(base, model, config, adapter_name)
    Kit::Collection.connect
    base.establish_connection(config)
    base.with_connection do |connection|
      assert_equal adapter_name, connection.adapter_name
      connection.create_table(model.table_name, force: true) do |t|
        t.string :name
        t.integer :count
        t.decimal :price, precision: 12, scale: 4
        t.boolean :flag
        t.datetime :at, precision: 6
      end
    end
    model.reset_column_information

    at = Time.utc(2024, 5, 6, 7, 8, 9, 123_456)
    # Four-byte UTF-8 too: MariaDB's utf8 (utf8mb3) would reject the rocket.
    id = model.create!(name: "héllo ☃ 🚀", count: 42, price: BigDecimal("12.3456"), flag: true, at: at).id
    row = model.find(id)
    assert_equal ["héllo ☃ 🚀", 42, BigDecimal("12.3456"), true, at],
                 [row.name, row.count, row.price, row.flag, row.at]
    assert_equal 1, model.count

    assert_equal "sqlite3", ActiveRecord::Base.connection_db_config.adapter
    assert ActiveRecord::Base.with_connection { |connection| connection.table_exists?(:posts) }
  ensure
    base.remove_connection
  end
end
