# frozen_string_literal: true

# Ruby source for a spec and an option set, printed in reproducers.
module RandomGraph
  # ---------------------------------------------------------------------------
  # Spec -> Ruby source (for reproducers).  `fragment` is the Fragment class
  # name to print.
  # ---------------------------------------------------------------------------

  def self.to_ruby(spec, fragment: "Jetson::Fragment")
    refs = collect_refs(spec)
    ruby_for(spec, fragment, refs)
  end

  def self.collect_refs(spec, acc = {})
    case spec[0]
    when :ref then acc[spec[1]] = true
    when :arr then spec[2].each { |c| collect_refs(c, acc) }
    when :hash then spec[2].each { |k, v| collect_refs(k, acc); collect_refs(v, acc) }
    when :obj then spec[3].each { |c| collect_refs(c, acc) }
    end
    acc
  end

  def self.string_literal(str)
    lit = str.inspect
    lit = str.dup.force_encoding(Encoding::BINARY).inspect unless str.valid_encoding? && str.encoding == Encoding::UTF_8
    lit
  end

  def self.literal_ruby(v)
    case v
    when Float
      if v.nan? then "Float::NAN"
      elsif v.infinite? then v > 0 ? "Float::INFINITY" : "-Float::INFINITY"
      else v.to_s
      end
    when Symbol
      s = v.to_s
      if s.encoding == Encoding::UTF_8 || s.encoding == Encoding::US_ASCII
        v.inspect
      else
        "String.new(#{s.b.inspect}, encoding: #{s.encoding.name.inspect}).to_sym"
      end
    else
      v.inspect
    end
  end

  def self.ruby_for(spec, fragment, refs)
    case spec[0]
    when :lit
      literal_ruby(spec[1])
    when :str
      _, bytes, enc, frozen, klass = spec
      raw = String.new(bytes, encoding: Encoding::BINARY)
      utf8 = raw.dup.force_encoding(Encoding::UTF_8)
      base =
        if enc == "UTF-8" && utf8.valid_encoding?
          frozen || klass ? utf8.inspect : "String.new(#{utf8.inspect})"
        else
          "String.new(#{raw.inspect}, encoding: #{enc.inspect})"
        end
      base = "#{klass.name}.new(#{base})" if klass
      frozen ? "#{base}.freeze" : base
    when :arr
      body = spec[2].map { |c| ruby_for(c, fragment, refs) }.join(", ")
      if spec[1]
        obj = "#{spec[1].name}[#{body}]"
        spec[3] && refs[spec[3]] ? "(a#{spec[3]} = #{spec[1].name}.new).concat([#{body}])" : obj
      else
        spec[3] && refs[spec[3]] ? "(a#{spec[3]} = []).concat([#{body}])" : "[#{body}]"
      end
    when :hash
      body = spec[2].map { |k, v| "#{ruby_for(k, fragment, refs)} => #{ruby_for(v, fragment, refs)}" }.join(", ")
      if spec[3] && refs[spec[3]]
        "(a#{spec[3]} = #{spec[1] ? "#{spec[1].name}.new" : "{}"}).update({#{body}})"
      elsif spec[1]
        "#{spec[1].name}[{#{body}}]"
      else
        "{#{body}}"
      end
    when :obj
      args = [spec[2].inspect] + spec[3].map { |c| ruby_for(c, fragment, refs) }
      "#{spec[1].name}.new(#{args.join(", ")})"
    when :basic
      "RandomGraph::BasicToS.new(#{spec[1].inspect})"
    when :misc
      "RandomGraph::MISC[#{spec[1].inspect}].call"
    when :frag
      "#{spec[2] ? "JSON::Fragment" : fragment}.new(#{spec[1].inspect})"
    when :ref
      "a#{spec[1]}"
    end
  end

  # Options -> Ruby source.
  def self.opts_to_ruby(opts)
    return opts.inspect unless opts.is_a?(Hash)

    body = opts.map do |k, v|
      val =
        if (name = AS_JSON.key(v)) then "RandomGraph::AS_JSON[#{name.inspect}]"
        elsif (name = SORT_KEYS.key(v)) then "RandomGraph::SORT_KEYS[#{name.inspect}]"
        else v.inspect
        end
      k.is_a?(Symbol) && k.inspect !~ /"/ ? "#{k}: #{val}" : "#{k.inspect} => #{val}"
    end
    "{#{body.join(", ")}}"
  end
end
