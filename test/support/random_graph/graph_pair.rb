# frozen_string_literal: true

# A spec built twice, once per side (see random_graph.rb).
module RandomGraph
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
end
