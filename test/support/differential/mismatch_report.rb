# frozen_string_literal: true

# Differential::Runner: mismatches as text, with a Ruby reproducer each.
module Differential
  class Runner
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
