# frozen_string_literal: true

# The inputs' side: a spec for a plain Ruby value, and a digest of an
# object graph showing that a call left its input alone.
module Differential
  # A spec for a plain Ruby value (Strings, Arrays and Hashes are rebuilt per
  # side; anything else is shared by both sides as a literal).
  def self.spec_of(v)
    case v
    when String then [:str, v.b, v.encoding.name, v.frozen?, v.instance_of?(String) ? nil : v.class]
    when Array then [:arr, v.instance_of?(Array) ? nil : v.class, v.map { |x| spec_of(x) }, nil]
    when Hash then [:hash, v.instance_of?(Hash) ? nil : v.class, v.map { |k, x| [spec_of(k), spec_of(x)] }, nil]
    else [:lit, v]
    end
  end

  # A structural digest of an object graph (classes, encodings, frozenness,
  # bytes, order), used to check that generation leaves its input alone.
  def self.graph_fingerprint(obj, seen = {}.compare_by_identity, out = String.new(encoding: Encoding::BINARY))
    if basic_object?(obj)
      out << "B;"
      return out
    end
    case obj
    when Hash, Array
      if seen.key?(obj)
        out << "R#{seen[obj]};"
        return out
      end
      seen[obj] = seen.size
      out << obj.class.name << (obj.frozen? ? "F" : "") << "#{obj.size}("
      if obj.is_a?(Hash)
        obj.each_pair { |k, v| graph_fingerprint(k, seen, out); graph_fingerprint(v, seen, out) }
      else
        obj.each { |v| graph_fingerprint(v, seen, out) }
      end
      out << ")"
    when String
      out << "S" << obj.class.name << obj.encoding.name << (obj.frozen? ? "F" : "") << obj.bytesize.to_s << ":"
      out << obj.b << ";"
    else
      out << obj.class.name.to_s << ";"
    end
    out
  end
end
