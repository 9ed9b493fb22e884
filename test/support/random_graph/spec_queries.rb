# frozen_string_literal: true

# Questions about a spec that the differential runs ask before a call.
module RandomGraph
  # Does the spec contain a reference to one of its own ancestors (a cycle)?
  def self.cyclic?(spec, ancestors = [])
    case spec[0]
    when :ref then ancestors.include?(spec[1])
    when :arr
      inner = ancestors + [spec[3]]
      spec[2].any? { |c| cyclic?(c, inner) }
    when :hash
      inner = ancestors + [spec[3]]
      spec[2].any? { |k, v| cyclic?(k, inner) || cyclic?(v, inner) }
    when :obj then spec[3].any? { |c| cyclic?(c, ancestors) }
    else false
    end
  end

  # Does the spec hold text that is not UTF-8 compatible (a String in another
  # encoding or with invalid bytes, or such a Symbol)?
  def self.foreign_text?(spec)
    case spec[0]
    when :str
      s = String.new(spec[1], encoding: spec[2])
      !(s.valid_encoding? && (s.encoding == Encoding::UTF_8 || s.encoding == Encoding::US_ASCII || s.ascii_only?))
    when :lit
      v = spec[1]
      v.is_a?(Symbol) && ![Encoding::UTF_8, Encoding::US_ASCII].include?(v.encoding)
    when :arr then spec[2].any? { |c| foreign_text?(c) }
    when :hash then spec[2].any? { |k, v| foreign_text?(k) || foreign_text?(v) }
    when :obj then spec[3].any? { |c| foreign_text?(c) }
    else false
    end
  end

  # as_json procs that may return a non-String for a String/Symbol value.
  # With strict: true, the json gem hands such a result for a Symbol (or a
  # Symbol produced by as_json) with non-UTF-8 text to its string writer as
  # if it were a String: undefined behaviour (garbage or a crash), so random
  # runs avoid that combination.
  NON_STRING_AS_JSON = [AS_JSON[:key_to_s_value_nil], AS_JSON[:describe], AS_JSON[:symbol]].freeze

  # Node count of a spec (for shrinking heuristics).
  def self.size(spec)
    case spec[0]
    when :arr then 1 + spec[2].sum { |c| size(c) }
    when :hash then 1 + spec[2].sum { |k, v| size(k) + size(v) }
    when :obj then 1 + spec[3].sum { |c| size(c) }
    else 1
    end
  end
end
