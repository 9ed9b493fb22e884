# frozen_string_literal: true

# RandomGraph::Generator's random generator option sets.
module RandomGraph
  class Generator
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
