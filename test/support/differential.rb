# frozen_string_literal: true

require "stringio"
require "json"
require_relative "random_graph"

# Differential comparison of Jetson against the json gem.
#
# For every document (a RandomGraph spec + a random option set) the same call
# is made through both libraries and the outcomes are compared: the returned
# bytes (and encoding/frozenness), or the exception class + message (+
# invalid_object for generator errors), plus any warnings emitted.
#
# Outputs are compared byte for byte, Floats included. The normalizations
# (each one keeps the comparison exact otherwise):
# - exception classes JSON::X map to Jetson::X, except for a JSON:: exception
#   raised by json gem code running inside a user callback (a to_json that
#   calls the json gem with the JSON::State it was handed): that is user
#   code's exception and must be the same class on both sides;
# - "JSON::State"/"JSON::Ext::Generator::State"/"JSON::Fragment"/"JSON::Coder" in messages
#   read as their Jetson names; object addresses (0x...) are masked, in
#   messages and in output text produced by default #to_s/#inspect;
# - error_highlight's source snippet is dropped from NameError messages;
# - warnings are compared by count (location prefixes dropped); differing
#   texts are collected as notes, not failures.
#
# Documents never combine a cycle with disabled nesting checks (Ruby 3.1 can
# abort on a stack overflow inside a Ruby callback), nor strict/as_json
# settings under which the json gem itself reads a non-String as a String
# (see RandomGraph::NON_STRING_AS_JSON).
module Differential
  # ---------------------------------------------------------------------------
  # Warning capture
  # ---------------------------------------------------------------------------

  class << self
    attr_accessor :warning_buffer
  end

  module WarningHook
    def warn(message, category: nil, **kwargs)
      if (buffer = Differential.warning_buffer)
        buffer << message.to_s
        nil
      else
        super
      end
    end
  end
  Warning.singleton_class.prepend(WarningHook)

  # Runs the block with warnings (Warning.warn and $stderr) captured.
  # Returns [value, exception, warnings]: one of value/exception is nil.
  def self.capturing_warnings
    buffer = []
    old_stderr = $stderr
    err = StringIO.new
    Differential.warning_buffer = buffer
    $stderr = err
    begin
      value = yield
      [value, nil, buffer]
    rescue Exception => e # rubocop:disable Lint/RescueException
      raise if e.is_a?(Interrupt) || e.is_a?(NoMemoryError)

      [nil, e, buffer]
    ensure
      $stderr = old_stderr
      Differential.warning_buffer = nil
      buffer.concat(err.string.lines) unless err.string.empty?
    end
  end

  # Runs a block with deprecation warnings enabled and $VERBOSE non-nil, so
  # that both libraries' warnings are observable.
  def self.with_warnings_enabled
    old_dep = Warning[:deprecated]
    old_verbose = $VERBOSE
    Warning[:deprecated] = true
    $VERBOSE = false if $VERBOSE.nil?
    yield
  ensure
    Warning[:deprecated] = old_dep
    $VERBOSE = old_verbose
  end

  # ---------------------------------------------------------------------------
  # Sides
  # ---------------------------------------------------------------------------

  Side = Struct.new(:name, :mod, :state_class, :fragment_class)

  def self.json_side
    Side.new(:json, ::JSON, ::JSON::State, ::JSON::Fragment)
  end

  def self.jetson_side
    Side.new(:jetson, ::Jetson, ::Jetson::State, ::Jetson::Fragment)
  end

  # ---------------------------------------------------------------------------
  # Entry points
  # ---------------------------------------------------------------------------

  DUMP_FORMS = %i[plain io limit io_limit opts io_opts io_limit_opts nil_limit nil_nil_opts kwargs].freeze

  def self.symbol_keyed?(opts)
    opts.is_a?(Hash) && opts.keys.all? { |k| k.is_a?(Symbol) }
  end

  def self.dump_call(side, obj, opts, form, limit)
    io = StringIO.new
    m = side.mod
    r =
      case form
      when :plain then m.dump(obj)
      when :io then m.dump(obj, io)
      when :limit then m.dump(obj, limit)
      when :io_limit then m.dump(obj, io, limit)
      when :opts then m.dump(obj, opts)
      when :io_opts then m.dump(obj, io, opts)
      when :io_limit_opts then m.dump(obj, io, limit, opts)
      when :nil_limit then m.dump(obj, nil, limit)
      when :nil_nil_opts then m.dump(obj, nil, nil, opts)
      when :kwargs then m.dump(obj, **opts)
      end
    r.equal?(io) ? [:returned_io, io.string] : r
  end

  # Would this call run with a (non-zero) max_nesting?  Conservative.
  def self.nesting_limited?(entry, opts, extra)
    if entry == :dump
      form, limit = extra
      eff = false
      eff = limit if limit && %i[limit io_limit nil_limit io_limit_opts].include?(form)
      if %i[opts io_opts io_limit_opts nil_nil_opts kwargs].include?(form)
        return false unless opts.is_a?(Hash) || opts.nil?

        eff = opts[:max_nesting] if opts&.key?(:max_nesting)
      end
    else
      eff = 100
      eff = opts[:max_nesting] if opts.is_a?(Hash) && opts.key?(:max_nesting)
    end
    eff.is_a?(Integer) && eff != 0
  end

  STATE_READERS = %i[indent space space_before object_nl array_nl max_nesting depth allow_nan? ascii_only?
                     script_safe? strict? buffer_initial_length].freeze

  def self.state_summary(state)
    STATE_READERS.map { |m| state.respond_to?(m) ? [m, state.public_send(m)] : [m, :missing] }
  end

  # name => lambda(side, obj, opts, extra) -> value (or raises)
  ENTRIES = {
    generate: ->(s, obj, opts, _x) { s.mod.generate(obj, opts) },
    generate_kw: ->(s, obj, opts, _x) { s.mod.generate(obj, **opts) },
    generate_state: ->(s, obj, opts, _x) { s.mod.generate(obj, s.state_class.new(opts)) },
    state_generate: ->(s, obj, opts, _x) { s.state_class.new(opts).generate(obj) },
    state_generate_io: lambda { |s, obj, opts, _x|
      io = StringIO.new
      r = s.state_class.new(opts).generate(obj, io)
      [:returned_io, r.equal?(io), io.string]
    },
    pretty_generate: ->(s, obj, opts, _x) { s.mod.pretty_generate(obj, opts) },
    pretty_generate_state: ->(s, obj, opts, _x) { s.mod.pretty_generate(obj, s.state_class.new(opts)) },
    dump: ->(s, obj, opts, x) { dump_call(s, obj, opts, x[0], x[1]) },
    state_reuse: lambda { |s, obj, opts, _x|
      st = s.state_class.new(opts)
      before = state_summary(st)
      first = st.generate(obj)
      second = st.generate(obj)
      [first, second, before, state_summary(st)]
    },
  }.freeze

  # Ruby source of the call, for reproducers.  `m`, `st`, `frag` name the side.
  def self.call_source(entry, extra, mod)
    case entry
    when :generate then "#{mod}.generate(obj, opts)"
    when :generate_kw then "#{mod}.generate(obj, **opts)"
    when :generate_state then "#{mod}.generate(obj, #{mod}::State.new(opts))"
    when :state_generate then "#{mod}::State.new(opts).generate(obj)"
    when :state_generate_io then "#{mod}::State.new(opts).generate(obj, io = StringIO.new); io.string"
    when :pretty_generate then "#{mod}.pretty_generate(obj, opts)"
    when :pretty_generate_state then "#{mod}.pretty_generate(obj, #{mod}::State.new(opts))"
    when :state_reuse then "st = #{mod}::State.new(opts); [st.generate(obj), st.generate(obj), st.depth]"
    when :dump
      form, limit = extra
      args =
        case form
        when :plain then ""
        when :io then ", io = StringIO.new"
        when :limit then ", #{limit.inspect}"
        when :io_limit then ", io = StringIO.new, #{limit.inspect}"
        when :opts then ", opts"
        when :io_opts then ", io = StringIO.new, opts"
        when :io_limit_opts then ", io = StringIO.new, #{limit.inspect}, opts"
        when :nil_limit then ", nil, #{limit.inspect}"
        when :nil_nil_opts then ", nil, nil, opts"
        when :kwargs then ", **opts"
        end
      "#{mod}.dump(obj#{args})"
    end
  end

  # ---------------------------------------------------------------------------
  # Outcomes
  # ---------------------------------------------------------------------------

  Outcome = Struct.new(:value, :error, :warnings)

  # Turn a return value into plain comparable data.
  def self.normalize(v)
    case v
    when String then [:string, v.b, v.encoding.name, v.frozen?, v.class.name]
    when Array then v.map { |x| normalize(x) }
    when Symbol, Integer, true, false, nil then v
    else [:object, v.class.name, v.inspect]
    end
  end

  def self.run_entry(side, entry, obj, opts, extra)
    fn = ENTRIES.fetch(entry)
    value, error, warnings = capturing_warnings { fn.call(side, obj, opts, extra) }
    Outcome.new(error ? nil : normalize(value), error, warnings)
  end

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
  CALLBACKS_FILE = File.expand_path("random_graph.rb", __dir__)

  # An exception raised by json gem code running inside a user callback (e.g.
  # a to_json doing `to_h.to_json(*args)` or `state.generate(x)` with the
  # JSON::State it was handed) is user code's exception: the same class is
  # expected on both sides, not the Jetson:: counterpart.  Such an exception
  # has json gem frames or user-callback frames (random_graph.rb) on its
  # backtrace.
  def self.raised_via_user_code?(error)
    bt = error.backtrace
    bt ? bt.any? { |line| line.start_with?(JSON_GEM_DIR) || line.start_with?(CALLBACKS_FILE) } : false
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

  # ---------------------------------------------------------------------------
  # The runner
  # ---------------------------------------------------------------------------

  class Stats
    attr_accessor :docs, :calls, :mismatch_count
    attr_reader :mismatches, :by_signature, :warning_notes, :signatures, :outcomes

    def initialize(max_kept: 200)
      @max_kept = max_kept
      @docs = 0
      @calls = 0
      @mismatch_count = 0
      @mismatches = []      # the first max_kept mismatches
      @by_signature = {}    # "entry: signature" => first mismatch with it
      @warning_notes = {}   # distinct warning-text differences => count
      @signatures = Hash.new(0)
      @outcomes = Hash.new(0)
    end

    def add_mismatch(m)
      @mismatch_count += 1
      key = "#{m.entry}: #{m.signature}"
      @signatures[key] += 1
      @by_signature[key] ||= m
      @mismatches << m if @mismatches.size < @max_kept
    end

    def add_warning_note(note)
      jw, kw = note
      # Both lists in full (shortened): the counts are equal (else it is a
      # mismatch), and a set difference would hide which texts pair up,
      # e.g. json ["JSON.generate: X", "JSON.generate: X"] against Jetson
      # ["JSON.generate: X", "Jetson.generate: X"] (a to_json handed the
      # json gem's State warns through the json gem).
      key = [jw.map { |w| w[0, 160] }, kw.map { |w| w[0, 160] }]
      @warning_notes[key] = (@warning_notes[key] || 0) + 1 if @warning_notes.size < 50 || @warning_notes.key?(key)
    end

    # Plain data (for sending from a worker process).
    def summary
      {
        docs: @docs, calls: @calls, mismatch_count: @mismatch_count,
        warning_notes: @warning_notes, signatures: @signatures.to_h,
        outcomes: @outcomes.to_h,
        kept: (@by_signature.values + @mismatches).uniq.map { |m| [m.doc_index, m.entry, m.extra, m.signature] }
      }
    end

    # Merge a summary (from a worker).  `rebuild` turns a kept tuple back into
    # a Mismatch (by re-running that call), or returns nil.
    def merge_summary!(h, &rebuild)
      @docs += h[:docs]
      @calls += h[:calls]
      @mismatch_count += h[:mismatch_count]
      h[:warning_notes].each { |k, v| @warning_notes[k] = (@warning_notes[k] || 0) + v }
      h[:signatures].each { |k, v| @signatures[k] += v }
      h[:outcomes].each { |k, v| @outcomes[k] += v }
      h[:kept].each do |tuple|
        key = "#{tuple[1]}: #{tuple[3]}"
        next if @by_signature.key?(key) && @mismatches.size >= @max_kept

        m = rebuild&.call(*tuple)
        next unless m

        @by_signature[key] ||= m
        @mismatches << m if @mismatches.size < @max_kept
      end
      self
    end
  end

  class Runner
    attr_reader :seed, :stats

    # entries: restrict to these entry points; generator_options: passed to
    # RandomGraph::Generator.new (profile:, depth:, width:, ...).
    def initialize(seed:, json_side: Differential.json_side, jetson_side: Differential.jetson_side,
                   max_kept: 200, entries: nil, generator_options: {})
      @seed = seed
      @json_side = json_side
      @jetson_side = jetson_side
      @only_entries = entries
      @generator_options = generator_options
      @stats = Stats.new(max_kept: max_kept)
    end

    def doc_rng(index)
      Random.new(@seed * (2**32) + index)
    end

    # The spec, options and call plan for document `index`.
    def plan(index)
      rng = doc_rng(index)
      gen = RandomGraph::Generator.new(rng, **@generator_options)
      spec = gen.document
      opts = gen.options
      if opts.is_a?(Hash) && opts[:strict] && RandomGraph::NON_STRING_AS_JSON.include?(opts[:as_json]) &&
         RandomGraph.foreign_text?(spec)
        opts = opts.merge(as_json: RandomGraph::AS_JSON[:to_s]) # see RandomGraph::NON_STRING_AS_JSON
      end
      # generate always; the other entry points on a random subset (each one
      # still runs on thousands of documents per 10k).
      calls = [[:generate, nil]]
      calls << [:pretty_generate, nil] if gen.chance(0.5)
      calls << [:generate_state, nil] if gen.chance(0.35)
      calls << [:state_generate_io, nil] if gen.chance(0.35)
      calls << [:state_generate, nil] if gen.chance(0.2)
      calls << [:generate_kw, nil] if Differential.symbol_keyed?(opts) && gen.chance(0.2)
      calls << [:pretty_generate_state, nil] if gen.chance(0.15)
      calls << [:state_reuse, nil] if gen.chance(0.1)
      calls << [:dump, [:plain, nil]] if gen.chance(0.4)
      if gen.chance(0.4)
        form = gen.pick(DUMP_FORMS)
        form = :opts if form == :kwargs && !Differential.symbol_keyed?(opts)
        calls << [:dump, [form, gen.pick([0, 1, 2, 3, 5, 100, nil, false])]]
      end
      calls.select! { |(e, _)| @only_entries.include?(e) } if @only_entries
      # Unbounded recursion (a cycle with nesting checks disabled) is kept out
      # of random runs: on Ruby 3.1 a stack overflow inside a Ruby callback
      # can abort the VM.  SystemStackError is covered by a forked test.
      calls.select! { |(e, x)| Differential.nesting_limited?(e, opts, x) } if RandomGraph.cyclic?(spec)
      [spec, opts, calls]
    end

    def materialize(spec)
      RandomGraph::Pair.new(spec, json_fragment: @json_side.fragment_class, jetson_fragment: @jetson_side.fragment_class)
    end

    # Runs one call on both sides and compares.
    def compare_call(spec, opts, entry, extra)
      pair = materialize(spec)
      a = Differential.run_entry(@json_side, entry, pair.json, opts, extra)
      b = Differential.run_entry(@jetson_side, entry, pair.jetson, opts, extra)
      [Differential.compare_outcomes(a, b, pair), a, b]
    end

    # Re-run one recorded call and return its Mismatch (nil if it now agrees).
    def rebuild_mismatch(doc_index, entry, extra, _signature = nil)
      spec, opts, = plan(doc_index)
      (kind, info, _), a, b = Differential.with_warnings_enabled { compare_call(spec, opts, entry, extra) }
      return nil unless kind == :mismatch

      Mismatch.new(signature: info, entry: entry, extra: extra, json: a, jetson: b, doc_index: doc_index,
                   seed: @seed, spec: spec, opts: opts)
    end

    # `progress` (optional) is called with (index, entry) before each call.
    def run_doc(index, stats = @stats, progress = nil)
      spec, opts, calls = plan(index)
      pair = materialize(spec)
      before = Differential.graph_fingerprint(pair.jetson)
      calls.each do |(entry, extra)|
        progress&.call(index, entry)
        a = Differential.run_entry(@json_side, entry, pair.json, opts, extra)
        b = Differential.run_entry(@jetson_side, entry, pair.jetson, opts, extra)
        stats.calls += 1
        stats.outcomes[a.error ? "error:#{a.error.class.name}" : "ok"] += 1
        kind, info, note = Differential.compare_outcomes(a, b, pair)
        stats.add_warning_note(note) if note
        if kind == :mismatch
          stats.add_mismatch(Mismatch.new(signature: info, entry: entry, extra: extra, json: a, jetson: b,
                                          doc_index: index, seed: @seed, spec: spec, opts: opts))
        end
      end
      # Generating must not change the input.
      if before != Differential.graph_fingerprint(pair.jetson)
        stats.add_mismatch(Mismatch.new(signature: "input graph changed by generation", entry: :all, extra: nil,
                                        json: Outcome.new(nil, nil, []), jetson: Outcome.new(nil, nil, []),
                                        doc_index: index, seed: @seed, spec: spec, opts: opts))
      end
      stats.docs += 1
      stats
    end

    def run(range, stats = @stats, progress = nil)
      Differential.with_warnings_enabled do
        range.each { |i| run_doc(i, stats, progress) }
      end
      stats
    end

    # ---- shrinking ------------------------------------------------------------

    # Greedily shrink a mismatch's spec and options while the same signature
    # persists.  Returns a new Mismatch.
    def shrink(mismatch, budget: 2000, seconds: 8)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
      spec = mismatch.spec
      opts = mismatch.opts
      sig = mismatch.signature
      entry = mismatch.entry
      extra = mismatch.extra
      attempts = 0
      Differential.with_warnings_enabled do
        loop do
          improved = false
          each_candidate(spec, opts) do |cspec, copts|
            attempts += 1
            break if attempts > budget || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

            r = begin
              compare_call(cspec, copts, entry, extra)
            rescue KeyError # a :ref whose target was removed
              next
            end
            next unless r[0][0] == :mismatch && r[0][1] == sig

            spec = cspec
            opts = copts
            improved = true
            break
          end
          break if !improved || attempts > budget || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
        end
        (kind, info, _), a, b = compare_call(spec, opts, entry, extra)
        Mismatch.new(signature: info, entry: entry, extra: extra, json: a, jetson: b,
                     doc_index: mismatch.doc_index, seed: mismatch.seed, spec: spec, opts: opts) if kind == :mismatch
      end || mismatch
    end

    def each_candidate(spec, opts, &blk)
      if opts.is_a?(Hash) && !opts.empty?
        opts.each_key { |k| yield spec, opts.reject { |kk, _| kk == k } }
      end
      spec_candidates(spec) { |c| yield c, opts }
      if opts.is_a?(Hash)
        # Simplify option values (pretty strings to one char, etc.).
        opts.each do |k, v|
          next unless v.is_a?(String) && v.size > 1

          yield spec, opts.merge(k => v[0])
        end
      end
    end

    NIL = [:lit, nil].freeze

    def spec_candidates(node, &blk)
      case node[0]
      when :arr
        kids = node[2]
        kids.each_index { |i| yield [:arr, node[1], kids[0...i] + kids[(i + 1)..], node[3]] }
        kids.each { |c| yield c unless c[0] == :ref }
        yield NIL
        yield [:arr, nil, kids, node[3]] if node[1]
        kids.each_with_index do |c, i|
          spec_candidates(c) { |nc| yield [:arr, node[1], kids.dup.tap { |a| a[i] = nc }, node[3]] }
        end
      when :hash
        pairs = node[2]
        pairs.each_index { |i| yield [:hash, node[1], pairs[0...i] + pairs[(i + 1)..], node[3]] }
        pairs.each { |(_, v)| yield v unless v[0] == :ref }
        yield NIL
        yield [:hash, nil, pairs, node[3]] if node[1]
        pairs.each_with_index do |(k, v), i|
          spec_candidates(k) { |nk| yield [:hash, node[1], pairs.dup.tap { |a| a[i] = [nk, v] }, node[3]] unless nk == NIL && k[0] != :lit }
          spec_candidates(v) { |nv| yield [:hash, node[1], pairs.dup.tap { |a| a[i] = [k, nv] }, node[3]] }
        end
      when :obj
        node[3].each { |c| yield c unless c[0] == :ref }
        yield NIL
        node[3].each_with_index do |c, i|
          spec_candidates(c) { |nc| yield [:obj, node[1], node[2], node[3].dup.tap { |a| a[i] = nc }] }
        end
      when :str
        _, bytes, enc, frozen, klass = node
        yield NIL
        yield [:str, bytes, enc, false, klass] if frozen
        yield [:str, bytes, enc, frozen, nil] if klass
        if bytes.bytesize > 0
          unit = enc.start_with?("UTF-16") ? 2 : 1
          chars = String.new(bytes, encoding: enc).valid_encoding? ? String.new(bytes, encoding: enc).chars.map(&:b) : bytes.scan(/./mn).each_slice(unit).map(&:join)
          n = chars.size
          if n > 1
            yield [:str, chars[0, n / 2].join, enc, frozen, klass]
            yield [:str, chars[(n / 2)..].join, enc, frozen, klass]
          end
          if n <= 40
            n.times { |i| yield [:str, (chars[0...i] + chars[(i + 1)..]).join, enc, frozen, klass] }
          end
          if enc != "UTF-8" && String.new(bytes, encoding: enc).valid_encoding? && String.new(bytes, encoding: enc).ascii_only?
            yield [:str, bytes, "UTF-8", frozen, klass]
          end
        end
      when :lit
        v = node[1]
        yield NIL unless v.nil?
        case v
        when Integer then yield [:lit, 0] unless v == 0
        when Float then yield [:lit, 1.5] unless v == 1.5 || v.nan? || v.infinite?
        when Symbol then yield [:lit, :a] unless v == :a
        end
      when :frag, :misc, :basic
        yield NIL
      end
    end

    # ---- reporting -------------------------------------------------------------

    def self.reproducer(m)
      obj_json = RandomGraph.to_ruby(m.spec, fragment: "JSON::Fragment")
      obj_jetson = RandomGraph.to_ruby(m.spec, fragment: "Jetson::Fragment")
      opts = RandomGraph.opts_to_ruby(m.opts)
      lines = []
      if obj_json == obj_jetson
        lines << "obj = #{obj_jetson}"
      else
        lines << "obj = #{obj_json}  # json side"
        lines << "obj = #{obj_jetson}  # jetson side"
      end
      lines << "opts = #{opts}"
      lines << "json:   #{Differential.call_source(m.entry, m.extra, "JSON")}"
      lines << "jetson: #{Differential.call_source(m.entry, m.extra, "Jetson")}"
      lines.join("\n")
    end

    # Report pieces may hold raw bytes from BINARY inputs or outputs.
    def self.printable(text)
      text.to_s.dup.force_encoding(Encoding::UTF_8).scrub
    end

    def self.format_mismatch(m, index = nil)
      text = format_mismatch_raw(m, index)
      text.valid_encoding? ? text : printable(text)
    rescue Encoding::CompatibilityError
      format_mismatch_raw(m, index, ->(t) { printable(t) })
    end

    def self.format_mismatch_raw(m, index = nil, clean = ->(t) { t })
      input = clean.(RandomGraph.to_ruby(m.spec))
      input = "#{input[0, 600]}...(#{input.size} chars)" if input.size > 600
      return <<~TEXT if m.entry == :all
        #{index ? "#{index}) " : ""}#{m.signature}
           seed=#{m.seed} doc=#{m.doc_index}  (rerun: JETSON_DIFF_SEED=#{m.seed} JETSON_DIFF_DOC=#{m.doc_index})
           input: #{input}
           opts:  #{RandomGraph.opts_to_ruby(m.opts)}
      TEXT

      <<~TEXT
        #{index ? "#{index}) " : ""}#{m.entry}#{m.extra ? " #{clean.(m.extra.inspect)}" : ""}: #{clean.(m.signature)}
           seed=#{m.seed} doc=#{m.doc_index}  (rerun: JETSON_DIFF_SEED=#{m.seed} JETSON_DIFF_DOC=#{m.doc_index})
           input: #{input}
           opts:  #{clean.(RandomGraph.opts_to_ruby(m.opts))}
           json:   #{clean.(Differential.describe_outcome(m.json))}
           jetson: #{clean.(Differential.describe_outcome(m.jetson))}
      TEXT
    end

    def self.warning_notes_summary(stats)
      return "" if stats.warning_notes.empty?

      out = +"Warning text differences (not failures; both sides warned):\n"
      stats.warning_notes.sort_by { |_, n| -n }.first(10).each do |(jw, kw), n|
        out << format("  %6d  json: %s\n          jetson: %s\n", n, jw.inspect[0, 200], kw.inspect[0, 200])
      end
      out
    end

    def self.report(stats, seed:, first: 5, shrink_with: nil, max_shrink: 25)
      out = +""
      out << "#{stats.mismatch_count} mismatching calls (#{stats.docs} docs, #{stats.calls} calls, seed #{seed})\n"
      out << "Distinct signatures (entry: problem):\n"
      stats.signatures.sort_by { |_, v| -v }.each { |sig, n| out << format("  %6d  %s\n", n, sig) }
      out << "\nFirst mismatches:\n"
      stats.mismatches.first(first).each_with_index { |m, i| out << format_mismatch(m, i + 1) }
      if shrink_with
        out << "\nShrunk reproducers (one per distinct problem; entries with the same reproducer are merged):\n"
        groups = {}
        stats.by_signature.values.first(max_shrink).each do |m|
          small = m.entry == :all ? m : shrink_with.shrink(m)
          key = [m.signature, RandomGraph.to_ruby(small.spec), RandomGraph.opts_to_ruby(small.opts),
                 m.entry == :dump ? small.extra : nil]
          (groups[key] ||= []) << small
        end
        groups.each_value do |list|
          small = list.first
          entries = list.map { |x| x.entry.to_s + (x.entry == :dump ? x.extra.inspect : "") }.uniq
          out << "--- #{small.signature}   [#{entries.join(", ")}]\n"
          out << "    (from seed=#{small.seed} doc=#{small.doc_index})\n"
          out << reproducer(small).gsub(/^/, "    ") << "\n"
          out << "    json   => #{Differential.describe_outcome(small.json)}\n"
          out << "    jetson => #{Differential.describe_outcome(small.jetson)}\n"
        end
      end
      out << warning_notes_summary(stats)
      out
    end
  end
end
