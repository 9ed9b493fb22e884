# frozen_string_literal: true

# For tests that assert a record's values were read natively: objects
# allocated by a block (with the GC off, so none are collected meanwhile),
# and whether ActiveModel's attribute set still holds a column uncast (no
# cast value and no Attribute built for it).
module NativeReadChecks
  def allocations
    GC.disable
    before = GC.stat(:total_allocated_objects)
    yield
    GC.stat(:total_allocated_objects) - before
  ensure
    GC.enable
  end

  def uncast?(record, column)
    set = record.instance_variable_get(:@attributes)
    !set.instance_variable_get(:@casted_values).key?(column) && !set.instance_variable_get(:@attributes).key?(column)
  end
end
