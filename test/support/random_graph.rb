# frozen_string_literal: true

# RandomGraph builds random Ruby object graphs (and random generator option
# sets) for differential testing of Jetson against the json gem.
#
# A document is first produced as a *spec*: a tree of small Arrays that
# describes the graph without creating any side-specific object.  The spec is
# then materialized twice, once for the json gem side and once for the Jetson
# side, so that side-specific classes (JSON::Fragment vs Jetson::Fragment) map
# correctly and neither side can observe mutations made by the other.
#
# Spec nodes ([tag, ...]):
#   [:lit, value]                         nil/true/false/Integer/Float/Symbol (shared)
#   [:str, bytes, encoding, frozen, klass] a String (klass nil or a String subclass)
#   [:arr, klass, children, id]           an Array (klass nil or an Array subclass)
#   [:hash, klass, pairs, id]             a Hash; pairs is [[key_spec, value_spec], ...]
#   [:obj, klass, payload, children]      a custom object: klass.new(payload, *materialized children)
#   [:misc, key]                          a core object without its own to_json (Range, Rational, ...)
#   [:frag, json, json_on_both]           JSON::Fragment / Jetson::Fragment (JSON::Fragment on
#                                         both sides when json_on_both is true)
#   [:ref, id]                            the already-built Array/Hash with that id (cycles, DAG sharing)
#
# Everything is driven by a Random, so a seed reproduces a document exactly.
module RandomGraph
  class Boom < StandardError; end

  # ---------------------------------------------------------------------------
  # Custom classes.  They behave identically on both sides; the only state they
  # hold comes from the spec (a payload string and materialized children).
  # ---------------------------------------------------------------------------

  class HashSub < Hash; end
  class ArraySub < Array; end
  class StrSub < String; end

  # Hash subclass with its own to_json that defers to the inherited one.
  class HashSubSuper < Hash
    def to_json(*args)
      super
    end
  end

  # Hash subclass whose to_json wraps the plain Hash output.
  class HashSubWrap < Hash
    def to_json(*args)
      %({"wrapped":#{to_h.to_json(*args)}})
    end
  end

  class ArraySubConst < Array
    def to_json(*)
      %(["array-sub",#{size}])
    end
  end

  class ArraySubSuper < Array
    def to_json(*args)
      super
    end
  end

  class StrSubConst < String
    def to_json(*)
      '"string-sub"'
    end
  end

  # String subclass whose to_s returns something else (matters for keys).
  class StrSubToS < String
    def to_s
      "to_s:#{String.new(self)}"
    end
  end

  # String subclass whose to_s does not return a String (keys raise TypeError).
  class StrSubBadToS < String
    def to_s
      42
    end
  end

  # Base for custom objects: payload string + materialized children.
  class Custom
    attr_reader :payload, :children

    def initialize(payload, *children)
      @payload = payload
      @children = children
    end

    def inspect
      "#<#{self.class.name} #{@payload.inspect}#{@children.empty? ? "" : " " + @children.inspect}>"
    end

    def hash
      [self.class, @payload].hash
    end

    def eql?(other)
      other.class == self.class && other.payload == @payload
    end
    alias == eql?
  end

  # to_json delegates {"x" => 1}.to_json(*args) (i.e. to the json gem's
  # Object#to_json through Hash).
  class DelegateConstHash < Custom
    def to_json(*args)
      { "x" => 1, "p" => @payload }.to_json(*args)
    end
  end

  # to_json delegates to a child's to_json with the same args.
  class DelegateChild < Custom
    def to_json(*args)
      @children.first.to_json(*args)
    end
  end

  # to_json returns a constant JSON text (the payload, not validated).
  class ConstJSON < Custom
    def to_json(*)
      @payload
    end
  end

  # to_json describes the arguments it receives.
  class ArgsJSON < Custom
    def to_json(*args)
      "[#{args.size},#{args.first.nil? ? "null" : "true"}]"
    end
  end

  # to_json uses the received state's #generate on its child.
  class StateGenerate < Custom
    def to_json(state = nil, *)
      state ? state.generate(@children.first) : '"no state"'
    end
  end

  # to_json reports some attributes of the state it receives.
  class StateInspect < Custom
    def to_json(state = nil, *)
      return '"no state"' unless state

      parts = [state.indent.inspect, state.space.inspect, state.object_nl.inspect,
               state.array_nl.inspect, state.depth, state.max_nesting,
               state.allow_nan?, state.ascii_only?, state.script_safe?, state.strict?]
      "[#{parts.map(&:to_s).map(&:inspect).join(",")}]"
    end
  end

  class RaisingToJSON < Custom
    def to_json(*)
      raise Boom, "to_json boom #{@payload}"
    end
  end

  # to_json returns something that is not a String.
  class BadToJSON < Custom
    BAD = [42, nil, :sym, 1.5, ["a"], { "a" => 1 }].freeze

    def to_json(*)
      BAD[@payload.size % BAD.size]
    end
  end

  # Plain object with only to_s (it still gets the json gem's Object#to_json).
  class ToSOnly < Custom
    def to_s
      @payload
    end
  end

  # A `method` of its own, as HTTP requests have (their verb): only to_s
  # otherwise, so the json gem's Object#to_json applies.
  class ToSWithMethod < Custom
    def method
      "GET"
    end

    def to_s
      @payload
    end
  end

  class ToSRaises < Custom
    def to_s
      raise Boom, "to_s boom #{@payload}"
    end
  end

  class ToSNotString < Custom
    def to_s
      @payload.size
    end
  end

  # BasicObject: no to_json, no respond_to?, only to_s.
  class BasicToS < BasicObject
    def initialize(payload)
      @payload = payload
    end

    def to_s
      @payload
    end

    def inspect
      "#<RandomGraph::BasicToS #{@payload.inspect}>"
    end

    def class
      ::RandomGraph::BasicToS
    end
  end

  # A Struct that is not a Fragment.
  Point = Struct.new(:x, :y)
  # A Struct member named `method` (a request's verb) hides Kernel#method.
  Request = Struct.new(:method, :path)

  CUSTOM_CLASSES = [
    DelegateConstHash, DelegateChild, ConstJSON, ArgsJSON, StateGenerate, StateInspect,
    RaisingToJSON, BadToJSON, ToSOnly, ToSWithMethod, ToSRaises, ToSNotString
  ].freeze

  # Core objects without their own to_json in the json gem (they get the
  # json gem's Object#to_json, i.e. their to_s as a JSON string).
  MISC = {
    range: -> { 1..3 },
    erange: -> { "a"..."c" },
    rational: -> { Rational(3, 4) },
    complex: -> { Complex(1, -2) },
    regexp: -> { /ab+c/i },
    klass: -> { String },
    mod: -> { Comparable },
    point: -> { Point.new(1, "two") },
    time: -> { Time.at(0).utc },
    exception: -> { ArgumentError.new("bad <arg>") },
    # An object with a singleton class (error messages name the singleton class).
    singleton: -> { ToSOnly.new("single").tap(&:singleton_class) },
    point_nested: -> { Point.new(nil, [1, "x"]) },
    request: -> { Request.new("GET", "/posts?page=2") },
  }.freeze

  # as_json procs used with strict: true.  Shared by both sides.
  AS_JSON = {
    to_s: ->(obj, _is_key) { obj.to_s },
    key_to_s_value_nil: ->(obj, is_key) { is_key ? obj.to_s : nil },
    identity: ->(obj, _is_key) { obj },
    describe: ->(obj, is_key) { is_key ? "k:#{obj.class.name}" : { "class" => obj.class.name.to_s.sub(/\A(?:JSON|Jetson)::/, "X::"), "key" => is_key } },
    to_h_or_s: ->(obj, _is_key) { obj.respond_to?(:to_h) ? obj.to_h : obj.to_s },
    to_a_or_s: ->(obj, _is_key) { obj.respond_to?(:to_a) ? obj.to_a : obj.to_s },
    raises: ->(obj, _is_key) { raise Boom, "as_json boom" },
    float_nan: ->(obj, _is_key) { obj.is_a?(Float) ? obj.to_s : obj.to_s.encode("UTF-8", invalid: :replace, undef: :replace) },
    scrub: ->(obj, _is_key) { obj.is_a?(String) ? obj.b.force_encoding("UTF-8").scrub("?") : obj.to_s },
    non_lambda_one_arg: proc { |obj| obj.to_s.b.force_encoding("UTF-8").scrub },
    lambda_one_arg: ->(obj) { obj.to_s },
    symbol: ->(obj, _is_key) { obj.to_s.to_sym },
  }.freeze

  SORT_KEYS = {
    by_to_s: ->(h) { h.sort_by { |k, _| k.to_s }.to_h },
    reverse: ->(h) { h.to_a.reverse.to_h },
    not_a_hash: ->(h) { h.to_a },
    identity: ->(h) { h },
  }.freeze

  # ---------------------------------------------------------------------------
  # Materialization
  # ---------------------------------------------------------------------------

  # Per-side settings: which Fragment class to build.
  Side = Struct.new(:name, :fragment_class)

  # Builds the json-side and the Jetson-side object graphs for one spec and an
  # identity map from json-side objects to their Jetson-side counterparts.
  class Pair
    attr_reader :json, :jetson, :map

    def initialize(spec, json_fragment:, jetson_fragment:)
      @map = {}.compare_by_identity
      @json_side = Side.new(:json, json_fragment)
      @jetson_side = Side.new(:jetson, jetson_fragment)
      @json_ids = {}
      @jetson_ids = {}
      @json, @jetson = build(spec)
    end

    # [found, jetson_obj]: the Jetson-side counterpart of a json-side object.
    def counterpart(json_obj)
      @map.key?(json_obj) ? [true, @map[json_obj]] : [false, nil]
    end

    private

    def register(a, b)
      @map[a] = b unless NilClass === a || TrueClass === a || FalseClass === a # rubocop:disable Style/CaseEquality
      [a, b]
    end

    # Two new containers of the spec's class (or `default`), registered, and
    # known by the spec's id to the cycles that refer back to it.
    def containers(spec, default)
      klass = spec[1] || default
      a, b = register(klass.new, klass.new)
      if (id = spec[3])
        @json_ids[id] = a
        @jetson_ids[id] = b
      end
      [a, b]
    end

    def build(spec)
      case spec[0]
      when :lit
        [spec[1], spec[1]]
      when :str
        register(RandomGraph.make_string(spec), RandomGraph.make_string(spec))
      when :arr
        a, b = containers(spec, Array)
        spec[2].each do |child|
          x, y = build(child)
          a << x
          b << y
        end
        [a, b]
      when :hash
        a, b = containers(spec, Hash)
        spec[2].each do |(kspec, vspec)|
          ka, kb = build(kspec)
          va, vb = build(vspec)
          a[ka] = va
          b[kb] = vb
        end
        # Hash#[]= may dup+freeze String keys: map the stored keys too.
        a.keys.zip(b.keys) { |x, y| register(x, y) } if a.size == b.size
        [a, b]
      when :obj
        klass = spec[1]
        kids = spec[3].map { |c| build(c) }
        a = klass.new(spec[2].dup, *kids.map(&:first))
        b = klass.new(spec[2].dup, *kids.map(&:last))
        register(a, b)
      when :basic
        register(BasicToS.new(spec[1].dup), BasicToS.new(spec[1].dup))
      when :misc
        register(MISC.fetch(spec[1]).call, MISC.fetch(spec[1]).call)
      when :frag
        # [:frag, json, true]: the json gem's own Fragment on both sides.
        jetson_class = spec[2] ? ::JSON::Fragment : @jetson_side.fragment_class
        register(@json_side.fragment_class.new(spec[1].dup), jetson_class.new(spec[1].dup))
      when :ref
        [@json_ids.fetch(spec[1]), @jetson_ids.fetch(spec[1])]
      else
        raise ArgumentError, "unknown spec node #{spec[0].inspect}"
      end
    end
  end

  def self.make_string(spec)
    _, bytes, enc, frozen, klass = spec
    s = String.new(bytes, encoding: Encoding::BINARY).force_encoding(enc)
    s = klass.new(s) if klass
    frozen ? s.freeze : s
  end

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

  # ---------------------------------------------------------------------------
  # Random generation
  # ---------------------------------------------------------------------------
  PROFILES = {
    tiny: { depth: 2, width: 4, budget: 12 },
    small: { depth: 4, width: 8, budget: 60 },
    medium: { depth: 6, width: 16, budget: 250 },
    wide: { depth: 2, width: 200, budget: 600 },
    deep: { depth: 110, width: 3, budget: 300 },
  }.freeze

  # A weighted choice among values, precomputed for speed.
  class Table
    def initialize(pairs)
      pairs = pairs.reject { |w, _| w <= 0 }
      @values = pairs.map(&:last).freeze
      total = 0.0
      @cumulative = pairs.map { |w, _| total += w }.freeze
      @total = total
    end

    def pick(rng)
      r = rng.rand * @total
      @values[@cumulative.bsearch_index { |c| c > r } || (@values.size - 1)]
    end
  end

  class Generator
    attr_reader :rng

    PROFILE_TABLE = Table.new([[40, :tiny], [33, :small], [18, :medium], [5, :wide], [4, :deep]])
    VALUE_TABLE = Table.new([[30, :scalar], [6, :custom], [1.5, :frag], [1, :misc], [0.6, :basic], [1.5, :str_sub]])
    SCALAR_TABLE = Table.new([[5, :nil], [5, :bool], [18, :integer], [20, :float], [40, :string], [8, :symbol]])
    INTEGER_TABLE = Table.new([[30, :small], [20, :int32], [10, :int63], [10, :edge], [8, :bignum], [5, :pow10]])
    FLOAT_TABLE = Table.new([[15, :bits], [15, :decimal], [8, :edge], [8, :int_scaled], [8, 1e15], [6, 1e16],
                             [6, 1e-7], [6, 1e-10], [6, 1e-4], [6, 1e21], [5, :subnormal], [6, :any_exp],
                             [5, :integral]])
    KEYMODE_TABLE = Table.new([[45, :string], [20, :symbol], [12, :mixed], [5, :mixed_dup], [10, :any],
                               [8, :string_subclass]])
    ANY_KEY = [[5, :string], [3, :symbol], [3, :integer], [1, :nil], [1, :bool], [2, :float], [2, :obj],
               [0.5, :obj_not_string], [0.5, :obj_raises], [0.5, :misc], [0.5, :array]].freeze
    ANY_KEY_TABLES = { true => Table.new(ANY_KEY), false => Table.new(ANY_KEY.reject { |_, v| v == :obj_raises }) }.freeze
    CUSTOM = [[3, DelegateConstHash], [3, DelegateChild], [3, ConstJSON], [2, ArgsJSON], [2, StateGenerate],
              [1, StateInspect], [1.5, RaisingToJSON], [1.5, BadToJSON], [4, ToSOnly], [0.7, ToSRaises],
              [0.7, ToSNotString]].freeze
    HAZARD_CUSTOM = [RaisingToJSON, BadToJSON, ToSRaises].freeze
    CUSTOM_TABLES = { true => Table.new(CUSTOM), false => Table.new(CUSTOM.reject { |_, k| HAZARD_CUSTOM.include?(k) }) }.freeze
    STRING_KINDS = [[82, :utf8], [4, :invalid], [4, :binary_ascii], [3, :binary_utf8], [1, :binary_invalid],
                    [2, :latin1], [1.5, :sjis], [1.5, :utf16], [0.5, :usascii], [0.7, :usascii_bad],
                    [0.7, :cp1252_bad], [0.7, :utf16_bad]].freeze
    HAZARD_STRINGS = %i[invalid binary_invalid usascii_bad cp1252_bad utf16_bad].freeze
    STRING_TABLES = { true => Table.new(STRING_KINDS),
                      false => Table.new(STRING_KINDS.reject { |_, k| HAZARD_STRINGS.include?(k) }) }.freeze
    TEXT_TABLE = Table.new([[30, :ascii], [25, :mixed], [10, :control], [10, :escapes], [10, :utf8], [5, :long],
                            [5, :boundary]])
    MIXED_CHAR_TABLE = Table.new([[6, :printable], [2, :escape], [2, :multibyte], [1, :control], [1, :codepoint]])

    # depth/width/budget override the randomly chosen profile.
    def initialize(rng, profile: nil, depth: nil, width: nil, budget: nil, cycles: true, nan: true)
      @rng = rng
      @profile = profile
      @depth_override = depth
      @width_override = width
      @budget_override = budget
      @cycles = cycles
      @nan = nan
      @hazards = true
    end

    def chance(p) = @rng.rand < p
    def pick(list) = list[@rng.rand(list.size)]

    # ---- documents --------------------------------------------------------

    def document
      profile = @profile || PROFILE_TABLE.pick(@rng)
      conf = PROFILES.fetch(profile)
      @max_depth = @depth_override || conf[:depth]
      @max_width = @width_override || conf[:width]
      @budget = @budget_override || conf[:budget]
      @next_id = 0
      @ancestors = []
      @want_cycle = @cycles && chance(0.02)
      @want_shared = chance(0.03)
      # Most documents avoid things that make the whole call raise (invalid
      # strings, raising callbacks, NaN), so that large documents still
      # produce output; a quarter of them allow hazards.
      @hazards = chance(0.25)
      @built = []

      if profile == :deep && !@depth_override
        deep_chain(chance(0.3) ? 1 + @rng.rand(12) : 95 + @rng.rand(12))
      else
        # Scalars alone are valid documents too.
        chance(0.08) ? scalar : container(0)
      end
    end

    def new_id
      @next_id += 1
    end

    # A linear chain of nested containers of the given depth.
    def deep_chain(n)
      leaf = chance(0.5) ? scalar : [:arr, nil, [], nil]
      n.times do
        leaf =
          if chance(0.5)
            extra = chance(0.3) ? [scalar] : []
            [:arr, nil, chance(0.5) ? [leaf] + extra : extra + [leaf], nil]
          else
            [:hash, nil, [[chance(0.7) ? string_key : [:lit, symbol_value], leaf]], nil]
          end
      end
      leaf
    end

    def container(depth)
      chance(0.5) ? array(depth) : hash(depth)
    end

    def width
      w = @max_width
      case @rng.rand(10)
      when 0 then 0
      when 1..5 then @rng.rand([w, 4].min + 1)
      else @rng.rand(w + 1)
      end
    end

    def array(depth)
      id = new_id
      klass = chance(0.06) ? pick(@want_cycle ? [ArraySub, ArraySubConst] : [ArraySub, ArraySub, ArraySubSuper, ArraySubConst]) : nil
      node = [:arr, klass, [], id]
      @ancestors.push(id)
      @built << id if @want_shared
      width.times do
        break if (@budget -= 1) < 0

        node[2] << value(depth + 1)
      end
      @ancestors.pop
      node
    end

    def hash(depth)
      id = new_id
      klass = chance(0.06) ? pick(@want_cycle ? [HashSub] : [HashSub, HashSub, HashSubSuper, HashSubWrap]) : nil
      node = [:hash, klass, [], id]
      @ancestors.push(id)
      @built << id if @want_shared
      keymode = KEYMODE_TABLE.pick(@rng)
      seen = []
      width.times do
        break if (@budget -= 1) < 0

        k =
          case keymode
          when :string then string_key
          when :symbol then [:lit, symbol_value]
          when :mixed then chance(0.5) ? string_key : [:lit, symbol_value]
          when :mixed_dup
            if !seen.empty? && chance(0.5)
              prev = pick(seen)
              if prev[0] == :lit
                string_key_from(prev[1].to_s)
              else
                text = String.new(prev[1], encoding: Encoding::BINARY).force_encoding(prev[2])
                text.valid_encoding? ? [:lit, text.to_sym] : [:lit, symbol_value]
              end
            else
              chance(0.5) ? string_key : [:lit, symbol_value]
            end
          when :string_subclass
            if chance(0.5)
              string_key
            else
              string_key(klass: pick(@hazards ? [StrSub, StrSubToS, StrSubToS, StrSubBadToS] : [StrSub, StrSubToS]))
            end
          else any_key
          end
        seen << k if keymode == :mixed_dup
        node[2] << [k, value(depth + 1)]
      end
      @ancestors.pop
      node
    end

    def value(depth)
      if @want_cycle && depth >= 2 && chance(0.3)
        @want_cycle = false
        return [:ref, pick(@ancestors)]
      end
      if @want_shared && !@built.empty? && chance(0.05)
        # Shared (non-cyclic) reference to an already finished container.
        done = @built - @ancestors
        return [:ref, pick(done)] unless done.empty?
      end
      if depth < @max_depth && @budget > 0 && chance(depth <= 1 ? 0.35 : 0.22)
        return container(depth)
      end

      case VALUE_TABLE.pick(@rng)
      when :scalar then scalar
      when :custom then custom(depth)
      when :frag then [:frag, fragment_text, chance(0.2)]
      when :misc then [:misc, pick(MISC_KEYS)]
      when :basic then [:basic, pick(["basic", "bäsic", "\u2028"])]
      else string(klass: pick([StrSub, StrSubConst, StrSubToS]))
      end
    end

    MISC_KEYS = MISC.keys.freeze

    def scalar
      case SCALAR_TABLE.pick(@rng)
      when :nil then [:lit, nil]
      when :bool then [:lit, chance(0.5)]
      when :integer then [:lit, integer]
      when :float then [:lit, float]
      when :string then string
      else [:lit, symbol_value]
      end
    end

    def custom(depth)
      # Objects that call back into the generator with a child are kept out
      # of cyclic documents: an implementation that loses the nesting depth
      # across to_json would recurse without bound (and Ruby 3.1 may abort on
      # a stack overflow inside a Ruby callback instead of raising).
      return [:obj, ConstJSON, "[1,2,3]", []] if @want_cycle

      klass = CUSTOM_TABLES[@hazards].pick(@rng)
      payload =
        if klass == ConstJSON
          pick(['{"const":true}', "[1,2,3]", '"str"', "null", "1.5", "<not json>", "", "\"\u00e9\u2028\""])
        elsif klass == ToSOnly
          s = String.new(raw_string_bytes(:utf8_or_ascii), encoding: "UTF-8")
          @hazards && chance(0.05) ? "\xFFbad".b.force_encoding("UTF-8") + s : s
        else
          pick(%w[a b c payload x])
        end
      children =
        if klass == DelegateChild || klass == StateGenerate
          [depth < @max_depth && chance(0.5) ? container(depth + 1) : scalar]
        else
          []
        end
      [:obj, klass, payload, children]
    end

    FRAGMENTS = ['{"a":1}', "[1,2]", "1e3", "true", "\"x\"", "  [ 1 ]  ", "", "not json", "{\"\u00e9\":\"\u2028\"}",
                 "\xFF".b.force_encoding("UTF-8"), "caf\xE9".b.force_encoding("ISO-8859-1"),
                 "\u00e9".encode("UTF-16LE")].freeze

    def fragment_text
      pick(FRAGMENTS)
    end

    # ---- keys ---------------------------------------------------------------

    def string_key(klass: nil)
      s = string
      s[4] = klass
      s
    end

    def string_key_from(text)
      [:str, text.b, text.encoding.name, chance(0.5), nil]
    end

    def any_key
      case ANY_KEY_TABLES[@hazards].pick(@rng)
      when :string then string_key
      when :symbol then [:lit, symbol_value]
      when :integer then [:lit, integer]
      when :nil then [:lit, nil]
      when :bool then [:lit, chance(0.5)]
      when :float then [:lit, float(nan: false)]
      when :obj then [:obj, ToSOnly, pick(%w[obj-key k \u00e9]), []]
      when :obj_not_string then [:obj, ToSNotString, "xyz", []]
      when :obj_raises then [:obj, ToSRaises, "k", []]
      when :misc then [:misc, pick(%i[range rational regexp klass point])]
      else [:arr, nil, [scalar], nil]
      end
    end

    # ---- scalars -----------------------------------------------------------

    INTEGER_EDGES = [0, -1, 1, 2**62 - 1, -(2**62), 2**62, -(2**62) - 1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1,
                     2**64 - 1, 2**64, -(2**64), 2**64 + 1, 10**18, 10**19, -(10**19), 9_007_199_254_740_993,
                     # rfc8785's: the exact doubles' end, printed plainly up to 10^21, the largest double
                     2**53, -(2**53), -(2**53) - 1, 10**21, 10**21 + 1, 10**308, 2**1024 - 2**971,
                     2**1024 - 2**970, 2**1024 - 2**970 + 1, -(2**1024)].freeze

    def integer
      case INTEGER_TABLE.pick(@rng)
      when :small then @rng.rand(-100..100)
      when :int32 then @rng.rand(-(2**31)..2**31)
      when :int63 then @rng.rand(-(2**62)..(2**62 - 1))
      when :edge then pick(INTEGER_EDGES)
      when :bignum then (chance(0.5) ? 1 : -1) * (2**(64 + @rng.rand(137)) + @rng.rand(2**40))
      else 10**@rng.rand(25) * (chance(0.5) ? 1 : -1)
      end
    end

    # json 3.1's canonical JSON, compared only where the json gem has it.
    RFC8785 = defined?(::JSON::VERSION) && Gem::Version.new(::JSON::VERSION) >= Gem::Version.new("3.1")

    FLOAT_EDGES = [0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 1.5, 100.0, 1e15, 1e16, 1e17, 1e20, 1e21, 1e22, 1e23,
                   1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-10, 5e-324, 2.2250738585072014e-308, 2.225073858507201e-308,
                   Float::MAX, -Float::MAX, Float::EPSILON, 123456789012345680.0, 9007199254740993.0,
                   0.1 + 0.2, 1.0 / 3, 2.0 / 3, 100.0 / 3,
                   # rfc8785's layout changes at 1e21 and 1e-7
                   9.999999999999999e20, 1.0000000000000001e21, 1.5e-7, 9.99999e-7, 1.234e-6].freeze
    NON_FINITE = [Float::NAN, Float::INFINITY, -Float::INFINITY].freeze

    def float(nan: @nan)
      return pick(NON_FINITE) if nan && @hazards && chance(0.02)

      f =
        case (k = FLOAT_TABLE.pick(@rng))
        when :bits then random_bits_float
        when :decimal then (@rng.rand * 10**@rng.rand(1..6)).round(@rng.rand(0..4)).to_f * (chance(0.3) ? -1 : 1)
        when :edge then pick(FLOAT_EDGES)
        when :int_scaled then @rng.rand(-(2**53)..2**53).to_f * (10.0**@rng.rand(-3..3))
        when :subnormal then subnormal
        when :any_exp then (@rng.rand * 2 - 1) * 10.0**@rng.rand(-330..310)
        when :integral then @rng.rand(-100_000..100_000).to_f
        else near(k)
        end
      f.nan? || f.infinite? ? 1.25 : f
    end

    def near(x)
      f = x * (1 + (@rng.rand - 0.5) * 10.0**-@rng.rand(0..15))
      f = f.next_float if chance(0.2)
      f = f.prev_float if chance(0.2)
      chance(0.2) ? -f : f
    end

    def random_bits_float
      loop do
        f = [@rng.rand(2**64)].pack("Q").unpack1("D")
        return f unless f.nan? || f.infinite?
      end
    end

    def subnormal
      f = [@rng.rand(1..(2**52 - 1))].pack("Q").unpack1("D")
      chance(0.5) ? -f : f
    end

    SYMBOL_NAMES = ["a", "key", "with space", "quo\"te", "\u00e9t\u00e9", "\u2028", "\u{1F600}", "", "a/b", "ctl\u0001",
                    "snake_case", "CamelCase", "0", "1.5", "nil"].freeze
    ODD_SYMBOLS = ["caf\xE9".b.force_encoding("ISO-8859-1").to_sym, "\x93\xfa".b.force_encoding("Shift_JIS").to_sym].freeze

    def symbol_value
      return pick(ODD_SYMBOLS) if chance(0.05) # a Symbol in a non-UTF-8 encoding
      return pick(SYMBOL_NAMES).to_sym if chance(0.7)

      String.new(raw_string_bytes(:utf8_or_ascii), encoding: "UTF-8").to_sym
    end

    # ---- strings -------------------------------------------------------------

    ESCAPES = ["\"", "\\", "/", "\b", "\f", "\n", "\r", "\t", "\u007f", "\u0000", "\u001f", "\u2028", "\u2029",
               "<", ">", "&", "'", "</script>", "\\u0041"].freeze
    MULTIBYTE = ["\u00e9", "\u00ff", "\u0100", "\u07ff", "\u0800", "\u20ac", "\u3042", "\uffff", "\ufeff", "\ud7ff",
                 "\ue000", "\u{10000}", "\u{1F600}", "\u{10FFFF}", "\u2028", "\u2029"].freeze
    SPECIALS = (ESCAPES + MULTIBYTE).freeze
    INVALID = ["\xFF", "\xC0\x80", "\xC3", "\xE2\x82", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\x80", "\xF0\x9F\x98",
               "\xFE\xFE"].map(&:b).freeze
    PRINTABLE = (32..126).map(&:chr).freeze
    CONTROL = (0..31).map(&:chr).freeze
    LOWER = ("a".."z").to_a.freeze
    BOUNDARY_LENGTHS = [7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 47, 48, 63, 64, 65, 127, 128, 129].freeze

    def printable
      PRINTABLE[@rng.rand(95)]
    end

    # Random UTF-8 (or ASCII) text bytes.
    def raw_string_bytes(kind = nil)
      kind ||= TEXT_TABLE.pick(@rng)
      kind = pick(%i[ascii mixed utf8]) if kind == :utf8_or_ascii
      out = +""
      case kind
      when :ascii
        pick([0, 1, 2, 5, 8, 12, 20]).times { out << printable }
      when :control
        (1 + @rng.rand(6)).times { out << (chance(0.6) ? CONTROL[@rng.rand(32)] : printable) }
      when :escapes
        (1 + @rng.rand(6)).times { out << (chance(0.6) ? pick(ESCAPES) : pick(LOWER)) }
      when :utf8
        (1 + @rng.rand(8)).times { out << (chance(0.7) ? pick(MULTIBYTE) : random_codepoint) }
      when :mixed
        (1 + @rng.rand(12)).times do
          out <<
            case MIXED_CHAR_TABLE.pick(@rng)
            when :printable then printable
            when :escape then pick(ESCAPES)
            when :multibyte then pick(MULTIBYTE)
            when :control then CONTROL[@rng.rand(32)]
            else random_codepoint
            end
        end
      when :long
        (20 + @rng.rand(300)).times { out << (chance(0.97) ? printable : pick(SPECIALS)) }
      when :boundary
        # A special character at a position near an 8/16/32/64-byte boundary.
        len = pick(BOUNDARY_LENGTHS)
        pos = pick([0, len - 1, len - 2, len / 2, @rng.rand(len)]).clamp(0, len - 1)
        base = Array.new(len) { pick(LOWER) }
        base[pos] = chance(0.85) ? pick(SPECIALS) : CONTROL[@rng.rand(32)]
        out << base.join
      end
      out.b
    end

    def random_codepoint
      loop do
        cp =
          case @rng.rand(8)
          when 0..2 then 0x80 + @rng.rand(0x780)
          when 3..5 then 0x800 + @rng.rand(0xF800)
          else 0x10000 + @rng.rand(0x100000)
          end
        next if cp.between?(0xD800, 0xDFFF)

        return cp.chr(Encoding::UTF_8)
      end
    end

    SJIS_SAMPLES = ["\u65e5\u672c\u8a9e", "\u30c6\u30b9\u30c8", "abc", "\uff71"].map { |s| s.encode("Shift_JIS").b }.freeze

    # A string spec: [:str, bytes, encoding, frozen, klass]
    def string(klass: nil)
      frozen = chance(0.3)
      bytes, enc =
        case STRING_TABLES[@hazards].pick(@rng)
        when :utf8 then [raw_string_bytes, "UTF-8"]
        when :invalid
          good = raw_string_bytes(:utf8_or_ascii)
          pos = @rng.rand(good.bytesize + 1)
          [good.byteslice(0, pos) + pick(INVALID) + good.byteslice(pos..), "UTF-8"]
        when :binary_ascii then [raw_string_bytes(:ascii), "BINARY"]
        when :binary_utf8 then [raw_string_bytes(:utf8), "BINARY"]
        when :binary_invalid then [raw_string_bytes(:ascii) + pick(INVALID), "BINARY"]
        when :latin1 then [Array.new(1 + @rng.rand(8)) { @rng.rand(256) }.pack("C*"), "ISO-8859-1"]
        when :sjis then [pick(SJIS_SAMPLES), "Shift_JIS"]
        when :utf16 then [String.new(raw_string_bytes(:utf8_or_ascii), encoding: "UTF-8").encode("UTF-16LE").b, "UTF-16LE"]
        when :usascii then [raw_string_bytes(:ascii), "US-ASCII"]
        when :usascii_bad then ["abc\xE9".b, "US-ASCII"]
        when :cp1252_bad then ["a\x81b".b, "Windows-1252"]
        when :utf16_bad then ["\x00\xD8a\x00".b, "UTF-16LE"]
        end
      [:str, bytes, enc, frozen, klass]
    end

    # ---- options ---------------------------------------------------------------

    # A random option Hash (or, rarely, something that is not a Hash).
    # Returns [opts, invalid?] where invalid? says an invalid value was injected.
    def options
      r = @rng.rand
      return nil if r < 0.10
      return {} if r < 0.14

      if chance(0.01)
        return pick([5, "indent", [[:indent, "  "]], :sym])
      end

      o = {}
      pretty = chance(0.35)
      strings = ["", " ", "  ", "\t", "--", "\n", "\r\n", "|", "\u00e9", "    "]
      if pretty
        o[:indent] = pick(strings + ["  ", "\t"]) if chance(0.8)
        o[:space] = pick([" ", "", "  ", "\t", "_"]) if chance(0.7)
        o[:space_before] = pick([" ", "", "\t", "\n"]) if chance(0.3)
        o[:object_nl] = pick(["\n", "", "\r\n", "|", "\n\n"]) if chance(0.7)
        o[:array_nl] = pick(["\n", "", "\r\n", "|", " "]) if chance(0.7)
      else
        o[:indent] = pick([nil, false, ""]) if chance(0.03)
        o[:space] = pick([nil, ""]) if chance(0.03)
      end
      o[:allow_nan] = pick([true, true, false, nil, 1]) if chance(0.15)
      o[:max_nesting] = pick([0, 1, 2, 3, 4, 5, 10, 100, 101, false, nil, -1]) if chance(0.15)
      o[:depth] = pick([0, 1, 2, 3, nil]) if chance(0.10)
      o[:ascii_only] = pick([true, true, false, nil]) if chance(0.15)
      if chance(0.15)
        o[pick(%i[script_safe script_safe escape_slash])] = pick([true, true, false, nil, "yes"])
      end
      if chance(0.15)
        o[:strict] = pick([true, true, false, nil])
        o[:as_json] = AS_JSON[pick(AS_JSON.keys)] if chance(0.6)
        o[:as_json] = pick([nil, false]) if chance(0.05)
      end
      o[:allow_duplicate_key] = pick([true, false, nil]) if chance(0.15)
      o[:sort_keys] = pick([true, true, false, nil, SORT_KEYS[pick(SORT_KEYS.keys)]]) if chance(0.08)
      # json 2 has no rfc8785 (it would ignore the key where Jetson honours it)
      o[:rfc8785] = pick([true, true, true, false, nil]) if RFC8785 && chance(0.12)
      o[:buffer_initial_length] = pick([1, 16, 0, -5, 4096, 100_000]) if chance(0.05)
      o[pick([:unknown_option, "indent", "max_nesting"])] = pick(["xx", 1]) if chance(0.02)

      if chance(0.03)
        # An invalid value, which must raise the same error on both sides.
        k, v = pick([[:indent, 5], [:space, :sym], [:object_nl, 1.5], [:array_nl, []], [:space_before, 1],
                     [:max_nesting, "3"], [:max_nesting, 2**64], [:max_nesting, 1.5], [:depth, -1], [:depth, "1"],
                     [:depth, 2**40], [:depth, 2**70], [:sort_keys, 1], [:sort_keys, "yes"], [:as_json, "not a proc"],
                     [:as_json, 5], [:buffer_initial_length, "x"], [:buffer_initial_length, 2**70],
                     [:buffer_initial_length, 1.5]])
        o[k] = v
      end

      # Randomize key order (matters for which invalid value raises first).
      o = o.to_a.shuffle(random: @rng).to_h
      o.freeze if chance(0.1)
      o
    end
  end
end
