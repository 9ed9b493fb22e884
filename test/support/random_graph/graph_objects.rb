# frozen_string_literal: true

# What a RandomGraph document holds besides plain data: the custom classes
# (user callbacks: to_json, to_s), the core objects without a to_json of
# their own, and the as_json and sort_keys procs of the option sets.
# Differential reads an exception raised from RandomGraph's files as user
# code's (Differential::CALLBACKS_DIR).
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
end
