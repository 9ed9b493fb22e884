# frozen_string_literal: true

# RandomGraph::Generator's scalars: Integers, Floats, Symbols and Strings.
module RandomGraph
  class Generator
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
  end
end
