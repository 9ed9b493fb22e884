# frozen_string_literal: true

# A table of a test's own in a RecordMatrix world, made afresh for each
# test, and a model class for it made afresh too (so that nothing a test
# defined or planned outlives it).
module ScratchTable
  module_function

  # Drops and creates `name` with the block's columns and the rows given
  # (column => value, written in SQL as the database's own text, not cast by
  # a model); a statement prepared before another test's schema change would
  # still return its columns, so the connection's caches are cleared too.
  def create(world, name, rows = [], &columns)
    connection = world.connection
    connection.drop_table(name, if_exists: true)
    connection.create_table(name, &columns)
    connection.schema_cache.clear_data_source_cache!(name.to_s)
    connection.clear_cache!
    rows.each do |row|
      connection.execute("INSERT INTO #{name} (#{row.keys.join(', ')}) " \
                         "VALUES (#{row.values.map { connection.quote(_1) }.join(', ')})")
    end
    connection
  end

  # A new model class for the table, named `const` in the world's namespace
  # (replacing the last test's), its body evaluated in it.
  def model(world, const, table, &body)
    klass = Class.new(world.base) { self.table_name = table.to_s }
    world.namespace.send(:remove_const, const) if world.namespace.const_defined?(const, false)
    world.namespace.const_set(const, klass)
    klass.class_eval(&body) if body
    klass
  end
end
