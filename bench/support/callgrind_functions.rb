# frozen_string_literal: true

require "open3"
require "set"

module JetsonBench
  # Where a contender's instructions go: the self cost of each function in
  # one callgrind dump (bench/generate.rb --callgrind), per call. Code
  # inlined from a header shows in callgrind_annotate as "header:function";
  # it is folded into its function here. Ruby's and the C library's functions
  # are summed into what they do for the call, so that the table reads as
  # the call's parts: the VM's method call (and the benchmark loop's own
  # iterations), Ruby's Hash iteration, the result String and the GC,
  # thread-local lookups, and each of the extension's functions.
  module CallgrindFunctions
    RUBY_PARTS = [
      ["Ruby: Hash iteration (rb_hash_foreach, its rb_ensure guard)",
       /\A(rb_hash_foreach|hash_foreach|hash_ar_foreach|hash_iter|ar_|rb_ensure|st_foreach|rb_st_foreach)/],
      ["Ruby: the result String and the GC", /(str|newobj|gc|heap|enc|rb_obj_|rb_wb|objspace|rb_memerror)/i],
      ["Ruby: the method call (VM, and the loop's iterations)", /\A(vm_|rb_vm|ractor_safe_call|rb_call|invoke_|rb_yield)/]
    ].freeze
    VM_PART = RUBY_PARTS.last.first

    Part = Struct.new(:name, :instructions)

    module_function

    # [Part] for dump file `path` holding `calls` calls, largest first: each
    # of the extension's functions (file matching ext_pattern), Ruby's parts,
    # and the rest as "other".
    def parts(path, calls, ext_pattern: %r{/ext/jetson/})
      total = File.foreach(path).find { |l| l.start_with?("summary:", "totals:") }.split[1].to_i
      # The frames the dump was taken in (main, the VM's loop) show the
      # whole dump as their own cost: no single function comes near it.
      costs = self_costs(path).reject { |_, _, ir| ir >= total * 0.9 }
      # A function of the extension's, wherever its inlined lines come from
      # (Ruby's headers too).
      ours = costs.filter_map { |file, function, _| function if file.match?(ext_pattern) || file.include?("jetson.so") }.to_set
      sums = Hash.new(0)
      costs.each do |file, function, ir|
        name = ours.include?(function) ? "Jetson: #{function}" : label(file, function)
        sums[name] += ir unless name == VM_PART
      end
      # The VM's share is the rest, for its frames' costs are among those left out.
      sums[VM_PART] = total - sums.values.sum
      sums.map { |name, ir| Part.new(name, ir.fdiv(calls)) }.sort_by { |p| -p.instructions }
    end

    def label(file, function)
      return "json: #{function}" if file.match?(%r{/json/ext/|/json/generator|generator\.so})
      return "Oj: #{function}" if file.match?(%r{/oj[-/]|oj\.so})
      return "thread-local lookups (__tls_get_addr: the ec, Ractor-local data)" if function.include?("tls_get_addr")
      return "libc: #{function}" if file.include?("libc.so") || file.start_with?("./")

      RUBY_PARTS.each { |name, pattern| return name if function.match?(pattern) }
      "Ruby: other (#{function})"
    end

    # [[file, function, self instructions]] from callgrind_annotate, inlined
    # headers' lines folded into the function they were inlined into.
    def self_costs(path)
      out, status = Open3.capture2("callgrind_annotate", "--threshold=100", "--inclusive=no", path)
      raise "callgrind_annotate failed on #{path}" unless status.success?

      out.each_line.filter_map do |line|
        m = line.match(/\A\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.+?):(\S+)(?:\s+\[(.*)\])?\s*\z/)
        next unless m

        ir = Integer(m[1].delete(","))
        file = m[4] || m[2] # the object file when given (inlined lines name the header), else the source
        [file, m[3].sub(/'\d+\z/, ""), ir] # f'2: recursion levels of f
      end
    end
  end
end
