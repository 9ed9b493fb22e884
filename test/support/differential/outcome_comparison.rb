# frozen_string_literal: true

# Two outcomes compared: bytes, exception classes and messages under the
# normalizations listed in differential.rb, warnings by count.
module Differential
  # ---------------------------------------------------------------------------
  # Comparison
  # ---------------------------------------------------------------------------

  Mismatch = Struct.new(:signature, :entry, :extra, :json, :jetson, :details, :doc_index, :seed, :spec, :opts,
                        keyword_init: true)

  # Result of one comparison: :same or [:mismatch, sig, details]
  # Compared as bytes: messages may hold invalid UTF-8 (e.g. an inspected
  # string) and must not be altered by scrubbing.
  def self.normalize_message(msg)
    msg = msg.to_s.b
    # error_highlight (Ruby 3.1) appends the failing source line to
    # NameError/NoMethodError messages; the snippet is not part of the error.
    msg = msg.sub(/\n\n.*\^+\s*\z/mn, "") if msg.include?("\n\n")
    msg
       .gsub(/JSON::Ext::Generator::State|JSON::State/n, "Jetson::State")
       .gsub("JSON::Fragment", "Jetson::Fragment")
       .gsub("JSON::Coder", "Jetson::Coder")
       .gsub("JSON::GeneratorError", "Jetson::GeneratorError")
       .gsub("JSON::NestingError", "Jetson::NestingError")
       .gsub(/0x\h{6,}/n, "0x...")
  end

  JSON_GEM_DIR = File.dirname(::JSON.method(:generate).source_location[0]) + "/"
  CALLBACKS_FILE = File.expand_path("../random_graph.rb", __dir__)
  # RandomGraph's parts (its custom classes and procs are in graph_objects.rb).
  CALLBACKS_DIR = File.expand_path("../random_graph", __dir__) + "/"

  # An exception raised by json gem code running inside a user callback (e.g.
  # a to_json doing `to_h.to_json(*args)` or `state.generate(x)` with the
  # JSON::State it was handed) is user code's exception: the same class is
  # expected on both sides, not the Jetson:: counterpart.  Such an exception
  # has json gem frames or user-callback frames (random_graph.rb and its
  # parts in random_graph/) on its backtrace.
  def self.raised_via_user_code?(error)
    bt = error.backtrace
    return false unless bt

    bt.any? do |line|
      line.start_with?(JSON_GEM_DIR) || line.start_with?(CALLBACKS_FILE) || line.start_with?(CALLBACKS_DIR)
    end
  end

  def self.mapped_class_name(error)
    name = error.class.name.to_s
    name.sub(/\AJSON::(?:Ext::Generator::)?/, "Jetson::")
  end

  def self.basic_object?(x)
    !(Object === x) # rubocop:disable Style/CaseEquality
  end

  def self.safe_inspect(x, limit = 400)
    s = basic_object?(x) ? x.inspect.to_s : x.inspect
    s = normalize_message(s)
    s.size > limit ? "#{s[0, limit]}...(#{s.size} chars)" : s
  rescue Exception => e # rubocop:disable Lint/RescueException
    "#<inspect raised #{e.class}>"
  end

  def self.same_value?(a, b)
    return true if a.equal?(b)
    return false if basic_object?(a) || basic_object?(b)

    if a.is_a?(Float) && b.is_a?(Float)
      return (a.nan? && b.nan?) || [a].pack("G") == [b].pack("G")
    end
    if a.is_a?(String) && b.is_a?(String)
      return a.class == b.class && a.encoding == b.encoding && a.b == b.b
    end
    return false unless normalize_message(a.class.name) == normalize_message(b.class.name)

    a == b || normalize_message(a.inspect) == normalize_message(b.inspect)
  rescue StandardError
    false
  end

  def self.invalid_object_matches?(a, b, pair)
    found, counterpart = pair ? pair.counterpart(a) : [false, nil]
    return counterpart.equal?(b) if found

    same_value?(a, b)
  end

  def self.strip_warning_location(w)
    normalize_message(w.to_s.sub(/\A.*?:\d+: warning: /m, "").sub(/\Awarning: /, ""))
  end

  # Compare two normalized values; returns :same or :different.
  ADDRESS_RE = /(#<[A-Z][\w:]*:)0x\h+/n
  FRAGMENT_INSPECT_RE = /#<struct (?:JSON|Jetson)::Fragment /n

  def self.compare_values(a, b)
    return :same if a == b

    a = strip_addresses(a)
    b = strip_addresses(b)
    return :same if a == b

    :different
  end

  # Default Object#to_s output (with an address) can legitimately appear in
  # output (e.g. "#{obj}" when to_s returns a non-String); addresses differ
  # between the two sides' objects, as do the Fragment class names in an
  # inspected container (e.g. an as_json proc returning obj.to_s).
  def self.strip_addresses(v)
    case v
    when String then v.include?("#<") ? v.b.gsub(ADDRESS_RE, "\\1").gsub(FRAGMENT_INSPECT_RE, "#<struct Fragment ") : v
    when Array then v.map { |x| strip_addresses(x) }
    else v
    end
  end

  # Compare two outcomes.  Returns [:same, nil, note] or
  # [:mismatch, signature, note]: note holds warning-text differences.
  def self.compare_outcomes(json, jetson, pair)
    problems = []

    if json.error.nil? && jetson.error.nil?
      problems << "output differs" if compare_values(json.value, jetson.value) == :different
    elsif json.error && jetson.error.nil?
      problems << "json raised #{json.error.class.name}, jetson returned"
    elsif json.error.nil? && jetson.error
      problems << "jetson raised #{jetson.error.class.name}, json returned"
    else
      je = json.error
      ke = jetson.error
      expected = mapped_class_name(je)
      same_class_via_user_code = ke.class.equal?(je.class) && je.class.name.start_with?("JSON::") &&
                                 raised_via_user_code?(ke)
      if expected != ke.class.name && !same_class_via_user_code
        problems << "exception class #{je.class.name} vs #{ke.class.name}"
      elsif normalize_message(je.message) != normalize_message(ke.message)
        problems << "#{je.class.name} message differs"
      elsif je.is_a?(JSON::GeneratorError)
        if !ke.respond_to?(:invalid_object)
          problems << "jetson error lacks invalid_object"
        elsif !invalid_object_matches?(je.invalid_object, ke.invalid_object, pair)
          problems << "GeneratorError#invalid_object differs"
        end
      end
    end

    note = nil
    if json.warnings.empty? && jetson.warnings.empty?
      jw = kw = json.warnings
    else
      jw = json.warnings.map { |w| strip_warning_location(w) }
      kw = jetson.warnings.map { |w| strip_warning_location(w) }
    end
    if jw.size != kw.size
      problems << "warnings: json #{jw.size}, jetson #{kw.size}"
    elsif jw != kw
      note = [jw, kw]
    end

    if problems.empty?
      [:same, nil, note]
    else
      [:mismatch, problems.join("; "), note]
    end
  end

  def self.describe_outcome(o, limit = 600)
    text =
      if o.error
        io = o.error.respond_to?(:invalid_object) ? " invalid_object=#{safe_inspect(o.error.invalid_object, 200)}" : ""
        "raised #{o.error.class.name}: #{o.error.message.to_s[0, limit].inspect}#{io}"
      else
        v = denormalize(o.value).inspect
        v.size > limit ? "#{v[0, limit]}...(#{v.size} chars)" : v
      end
    o.warnings.empty? ? text : "#{text}\n      warnings: #{o.warnings.map { |w| strip_warning_location(w) }.inspect[0, 300]}"
  end

  # Readable form of a normalized value.
  def self.denormalize(v)
    case v
    when Array
      if v[0] == :string && v.size == 5
        s = v[1].dup.force_encoding(v[2])
        v[3] || v[4] != "String" ? [s, (v[3] ? "frozen" : nil), v[4] == "String" ? nil : v[4]].compact.then { |a| a.size == 1 ? a[0] : a } : s
      else
        v.map { |x| denormalize(x) }
      end
    else
      v
    end
  end
end
