# frozen_string_literal: true

# Differential::Runner: a mismatch made smaller while it stays the same.
module Differential
  class Runner
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
  end
end
