# frozen_string_literal: true

# Random documents: the shape (profiles, containers, cycles, sharing), the
# values and the keys.  Scalars are in scalar_generator.rb, option sets in
# option_generator.rb: the same class, split by what it draws.
module RandomGraph
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
  end
end
