# frozen_string_literal: true

# Where a view request's instructions go, per partial render and per DSL
# call (issue 61): one world of bench/views.rb under callgrind (no JIT).
#
#   bundle exec ruby bench/views/components.rb [--world=jetson] [--requests=N] [--yjit] [--modes=info,debug,regex]
#                                              [--report-only] [--no-write] [nested] [app]
#
# The world runs under `valgrind --tool=callgrind --dump-before=rb_proc_times`
# (bench/support/callgrind.rb's markers: Process.times before and after each
# measured stretch, so each stretch is one dump file). For each endpoint and
# each listening mode
#   info   the bench app as it is: logger at :info, nobody listens to the
#          render events;
#   debug  the logger (a Logger on File::NULL, so messages are formatted and
#          written) at :debug: ActionView's and ActiveRecord's log
#          subscribers listen and format;
#   regex  logger at :info and one subscriber to /render/ (a block doing
#          nothing), as APM agents subscribe;
# it counts N requests (after 2) of each of
#   constant  the constant floor (records loaded, the reference body sent);
#   own       the templates' own Ruby: every value the templates compute,
#             computed in the action (OwnController);
#   templates the templates' compiled methods run with a json that builds
#             nothing (TemplatesController, NullJson);
#   view      the endpoint's views through the world's view layer;
# and splits each stretch's instructions by function (self cost, from
# callgrind_annotate) into parts: the extension's builder files one by one,
# its writing (rails/, json/, bytes/), and Ruby's by what they do (the
# interpreter running Ruby code, method dispatch and blocks, Hashes, ivars,
# objects and the GC, Strings and Regexps, ...). Ruby methods are all
# interpreter to callgrind; stackprof (bench/views/breakdown.rb) splits them.
#
# After the measured stretches, one request of each view is walked with
# TracePoints (outside any measured stretch): partial renders (the
# templates' compiled methods called), DSL calls (methods called on the
# builder from a template), the render events sent and the blocks the
# templates give the DSL; and a few operations are counted alone, N × 200
# times each between markers: an instrument call of render_partial with
# nobody listening, with the regex subscriber and at debug level; a
# template lookup through Jetson's PartialRenderer#find; Jetson's DSL calls
# (a scalar, a do block, a collection with a block, extract! of 3
# attributes).
#
# Written to bench/results/views-components-WORLD.md.

$stdout.sync = true
require "json"
require "rbconfig"
require "tmpdir"
require "open3"
require "fileutils"

module BenchViews
  module Components
    MARKER = "rb_proc_times"
    MANIFEST = "COMPONENTS-MANIFEST "
    VARIANTS = { "constant" => "/constant", "own" => "/own", "templates" => "/templates", "view" => "/posts" }.freeze
    MODES = %w[info debug regex].freeze
    OPS = 200 # per op measurement: N × OPS calls
    LOGGER_HOLDERS = -> { [ActionView::Base, ActiveRecord::Base, ActionController::Base, ActiveSupport::LogSubscriber] }

    module_function

    def path(variant, endpoint) = "#{VARIANTS.fetch(variant)}/#{endpoint}.json"

    # --- the child, under valgrind ---------------------------------------------------------

    def child(world, endpoints, requests, modes = MODES)
      require_relative "world"
      BenchViews.boot(world)
      BenchViews::World.encoder = "stock"
      BenchViews::World.own_floor_bodies
      marks = 0
      mark = -> { Process.times && (marks += 1) }
      warm = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? 3 : 2
      measure = lambda do |n, &block|
        warm.times(&block) if n > 1
        GC.start
        mark.call
        n.times(&block)
        mark.call
        marks
      end
      manifest = { world: world, requests: requests, endpoints: endpoints, modes: modes, counts: {}, dumps: {}, ops: {},
                   yjit: defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? true : false, warm: warm }
      2.times { measure.call(1) { nil } } # the markers' first calls are cold
      manifest[:empty] = measure.call(requests) { nil }
      # Every stretch's code run first, so that no measured stretch holds
      # YJIT compiling what it meets for the first time (the first stretch
      # measured held some 60M instructions of it).
      endpoints.each do |e|
        modes.each { |mode| listening(mode) { VARIANTS.each_key { |v| warm.times { BenchViews::World.request(path(v, e)) } } } }
      end
      endpoints.each do |e|
        modes.each do |mode|
          listening(mode) do
            VARIANTS.each_key do |v|
              manifest[:dumps]["#{e} #{mode} #{v}"] = measure.call(requests) { BenchViews::World.request(path(v, e)) }
            end
          end
        end
      end
      ops(world).each do |name, op|
        mode, = name.split(":")
        next if MODES.include?(mode) && !modes.include?(mode)

        listening(MODES.include?(mode) ? mode : "info") do
          manifest[:ops][name] = measure.call(requests * OPS) { op.call }
        end
      end
      manifest[:empty_ops] = measure.call(requests * OPS) { nil }
      # Last: once a TracePoint has been enabled, the interpreter keeps
      # calling vm_trace (some 7% of a request here) and YJIT's code is gone.
      endpoints.each { |e| manifest[:counts][e] = walk(path("view", e)) }
      manifest[:dump_count] = marks
      puts MANIFEST + JSON.generate(manifest)
    end

    # The logger and subscribers of a mode, around the block.
    # (BenchViews.listen's, bench/views/world.rb, undone after the block.)
    def listening(mode)
      loggers = LOGGER_HOLDERS.call.to_h { |k| [k, k.logger] }
      rails_logger = Rails.logger
      subscriber = nil
      case mode
      when "debug" then BenchViews.listen("debug")
      when "regex" then subscriber = ActiveSupport::Notifications.subscribe(/render/) { |*| nil }
      end
      yield
    ensure
      ActiveSupport::Notifications.unsubscribe(subscriber) if subscriber
      if mode == "debug"
        loggers.each { |k, logger| k.logger = logger }
        Rails.logger = rails_logger
      end
    end

    # What one request of the view does, walked with TracePoints.
    def walk(view)
      partials = Hash.new(0)
      dsl = Hash.new(0)
      events = Hash.new(0)
      builder = defined?(::JbuilderTemplate) ? ::JbuilderTemplate : ::Jbuilder
      in_template = 0
      trace = TracePoint.new(:call, :return, :c_call) do |tp|
        name = tp.method_id.to_s
        if name.start_with?("_views_")
          if tp.event == :call
            partials[name[/_views_jbuilder_(.*)_json_jbuilder/, 1] || name] += 1
            in_template += 1
          elsif tp.event == :return
            in_template -= 1
          end
        elsif tp.event != :return && in_template.positive? && builder === tp.self && !name.start_with?("_") &&
              !%w[initialize target!].include?(name) # the handler's, not the template's
          dsl[name] += 1
        end
      end
      subscriber = ActiveSupport::Notifications.subscribe(/action_view/) { |event, *| events[event] += 1 }
      trace.enable { BenchViews::World.request(view) }
      ActiveSupport::Notifications.unsubscribe(subscriber)
      { partials: partials, dsl: dsl, events: events }
    end

    # Operations counted alone: name => callable.
    def ops(world)
      payload = { identifier: "/x/authors/_author.json.jbuilder", layout: nil }
      instrument = -> { ActiveSupport::Notifications.instrument("render_partial.action_view", payload.dup) { nil } }
      # What instrument runs once something listens, without its wrapper
      # (Notifications.instrument's listening? and block, Instrumenter#instrument's
      # frame): the handle the Instrumenter builds, started and finished.
      handle = lambda do
        h = ActiveSupport::Notifications.instrumenter.build_handle("render_partial.action_view", payload.dup)
        h.start
        begin
          nil
        ensure
          h.finish
        end
      end
      found = {
        "info:instrument render_partial (nobody listens)" => instrument,
        "debug:instrument render_partial (debug log level)" => instrument,
        "debug:its Instrumenter's handle, started and finished (debug log level)" => handle,
        "regex:instrument render_partial (a /render/ subscriber)" => instrument,
        "regex:its Instrumenter's handle, started and finished (a /render/ subscriber)" => handle
      }
      return found unless world == "jetson"

      controller = PostsController.new
      controller.request = ActionDispatch::Request.new(Rack::MockRequest.env_for("/posts/app.json"))
      view = controller.view_context
      renderer = Jetson::Views::PartialRenderer.new(view)
      details = { handlers: [:jbuilder] }.freeze
      keys = %i[author json]
      renderer.find("authors/author", keys, details)
      json = JbuilderTemplate.new(view)
      author = Author.first
      three = Post.includes(:comments).first.comments.last(3)
      found.merge(
        "op:PartialRenderer#find (a template already found)" => -> { renderer.find("authors/author", keys, details) },
        "op:json.key value (a scalar)" => -> { json.id 1 },
        "op:json.key do ... end (an empty block)" => -> { json.stats { nil } },
        "op:json.key collection do |x| (3 elements, 1 scalar each)" => -> { json.latest(three) { |c| json.id 1 } },
        "op:json.extract! record, 3 attributes" => -> { json.extract!(author, :id, :name, :email) }
      )
    end

    # --- the parent -------------------------------------------------------------------------

    def run(argv)
      require_relative "../support/setup"
      require_relative "../support/report"
      world = argv.find { _1.start_with?("--world=") }&.split("=", 2)&.last || "jetson"
      requests = Integer(argv.find { _1.start_with?("--requests=") }&.split("=", 2)&.last || 2)
      yjit = argv.include?("--yjit")
      modes = argv.find { _1.start_with?("--modes=") }&.split("=", 2)&.last || MODES.join(",")
      endpoints = argv.reject { _1.start_with?("--") }
      endpoints = %w[nested app] if endpoints.empty?
      name = "#{world}#{yjit ? '-yjit' : ''}"
      # The dumps are kept (tmp/ is not committed), so that --report-only
      # can read them again.
      dir = File.expand_path("../../tmp/views-components/#{name}", __dir__)
      prefix = File.join(dir, "cg.out")
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      unless argv.include?("--report-only")
        FileUtils.rm_rf(dir)
        FileUtils.mkdir_p(dir)
        # YJIT's code is written at run time: valgrind must look for it.
        command = ["valgrind", "--tool=callgrind", "--dump-before=#{MARKER}", "--callgrind-out-file=#{prefix}",
                   *(yjit ? ["--smc-check=all-non-file"] : []), RbConfig.ruby, *(yjit ? ["--yjit"] : []), __FILE__,
                   "--child", "--world=#{world}", "--requests=#{requests}", "--modes=#{modes}", *endpoints]
        out, status = Open3.capture2(*command, err: File.join(dir, "valgrind.log"))
        abort "valgrind failed:\n#{File.readlines(File.join(dir, 'valgrind.log')).last(30).join}" unless status.success?
        line = out.lines.reverse.find { _1.start_with?(MANIFEST) } || abort("no manifest:\n#{out}")
        File.write(File.join(dir, "manifest.json"), line.delete_prefix(MANIFEST))
      end
      manifest = JSON.parse(File.read(File.join(dir, "manifest.json")))
      found = Dir.glob("#{prefix}.*").size
      abort "#{found} dump files, #{manifest['dump_count']} markers" unless found == manifest["dump_count"]
      seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      report = report(manifest, prefix, manifest["endpoints"] || endpoints, seconds)
      cmd = "bundle exec ruby bench/views/components.rb #{argv.join(' ')}".strip
      title = "Where a view request's instructions go: the #{world} world (callgrind, #{yjit ? 'YJIT' : 'no JIT'})"
      JetsonBench::Report.publish(JetsonBench::Report.head(title, cmd) + report, "views-components-#{name}.md", argv)
    end

    def instructions(prefix, k)
      Integer(File.foreach("#{prefix}.#{k}").find { _1.start_with?("summary:", "totals:") }.split[1])
    end

    # The parts of a stretch: [part, instructions] (self costs summed).
    BUILDER_FILES = %r{ext/jetson/builder/(\w+\.c)}
    LAYERS = {
      "rails" => "Jetson rails/ (attribute sets, casts, times, Rails mode's walk)",
      "json" => "Jetson json/ (the walk, keys, strings)",
      "bytes" => "Jetson bytes/ (the buffer, escaping, numbers)"
    }.freeze
    RUBY_PARTS = [
      ["Ruby: Regexp matching", /\A(onig|rb_reg|match_at|reg_|rb_memsearch)/],
      ["Ruby: Hashes (st_, ar_, rb_hash)", /\A(st_|rb_st_|ar_|rb_hash|hash_|any_hash|rb_any_hash|rb_ident_hash|obj_any_hash)/],
      ["Ruby: objects and the GC", /(newobj|gc_|heap_|objspace|rb_wb|rb_gc|gc\z|mark|sweep|rb_obj_alloc|rb_ec_wb|rb_class_new_instance|free)/i],
      ["Ruby: instance variables and shapes", /\A(rb_ivar|ivar_|rb_shape|shape_|vm_setivar|vm_getivar|rb_obj_ivar)/],
      ["Ruby: Strings, Symbols, encodings", /\A(rb_str|str_|rb_enc|enc_|rb_sym|sym_|rb_id|rb_intern|coderange|search_nonascii|rb_fstring|fstr|lookup_str)/],
      ["Ruby: Arrays", /\A(rb_ary|ary_)/],
      ["Ruby: method dispatch, blocks, frames (vm_call*, vm_push_frame, yield)",
       /\A(vm_call|vm_push_frame|vm_pop_frame|rb_vm_call|rb_call|vm_invoke|invoke_|rb_yield|vm_yield|rb_funcall|vm_search|rb_callable|callable_method|rb_method_|method_entry|vm_sendish|vm_cc|rb_vm_search|rb_ensure|rb_protect|rb_catch|vm_caller|setup_parameters|args_|rb_block|vm_callee|rb_ec_|rb_vm_frame|vm_to_proc|vm_make_env|rb_vm_make_proc|proc_)/],
      ["Ruby: the interpreter's loop (vm_exec_core: running Ruby code)", /\A(vm_exec|rb_vm_exec|vm_sendish|vm_opt|opt_|vm_getinstancevariable|vm_setinstancevariable|vm_get_ev_const|vm_)/]
    ].freeze

    # [[source file, object file, function, self instructions]] from
    # callgrind_annotate (CallgrindFunctions.self_costs keeps one file).
    def self_costs(path)
      out, status = Open3.capture2("callgrind_annotate", "--threshold=100", "--inclusive=no", path)
      raise "callgrind_annotate failed on #{path}" unless status.success?

      out.each_line.filter_map do |line|
        m = line.match(/\A\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.+?):(\S+)(?:\s+\[(.*)\])?\s*\z/)
        [m[2], m[4].to_s, m[3].sub(/'\d+\z/, ""), Integer(m[1].delete(","))] if m
      end
    end

    def parts(prefix, k)
      @parts ||= {}
      @parts[[prefix, k]] ||= begin
        total = instructions(prefix, k)
        costs = self_costs("#{prefix}.#{k}")
        # a function of the extension's, wherever its inlined lines come from
        ours = costs.filter_map { |source, object, function, _| function if object.include?("jetson.so") }.uniq
        home = {}
        costs.each do |source, _, function, ir|
          next unless ours.include?(function) && source.include?("ext/jetson/") && !source.end_with?(".h")

          home[function] ||= source
        end
        sums = Hash.new(0)
        costs.each do |source, object, function, ir|
          next if ir >= total * 0.9

          sums[part_of(home[function] || source, object, function, ours.include?(function))] += ir
        end
        sums["Ruby: the interpreter's loop (vm_exec_core: running Ruby code)"] += total - sums.values.sum
        sums
      end
    end

    def part_of(file, object, function, ours)
      if ours
        return "Jetson builder: #{file[BUILDER_FILES, 1]}" if file.match?(BUILDER_FILES)

        layer = file[%r{ext/jetson/(\w+)/}, 1]
        return LAYERS.fetch(layer) { "Jetson: #{layer || function}" }
      end
      return "YJIT's generated code" if file == "???" && !object.include?(".so")
      return "libc (malloc, memcpy, ...)" if object.include?("libc.so") || function.match?(/\A(__|_int_|malloc|free|mem|str)/)

      RUBY_PARTS.each { |name, pattern| return name if function.match?(pattern) }
      "Ruby: other C functions"
    end

    def report(m, prefix, endpoints, seconds)
      n = m["requests"]
      empty = instructions(prefix, m["empty"])
      per_request = ->(key) { (instructions(prefix, m["dumps"].fetch(key)) - empty).fdiv(n) }
      mi = ->(ir) { format("%.2f", ir / 1e6) }
      out = +"- **Run**: #{n} requests per stretch (after #{m.fetch("warm", 2)}, each stretch also run as many times before the first), #{format('%.0f', seconds)} s under valgrind; " \
              "instructions per request = (the stretch − an empty stretch) ÷ #{n}\n\n"
      endpoints.each do |e|
        c = m["counts"][e]
        # a partial's file name starts with "_": "posts/_row" gives posts__row
        partials = c["partials"].sum { |k, v| k.include?("__") ? v : 0 }
        dsl = c["dsl"].values.sum
        out << "## #{e}\n\n"
        out << "One request: #{partials} partial renders (#{c['partials'].map { |k, v| "#{k} #{v}" }.join(', ')}), " \
               "#{dsl} DSL calls from the templates (#{c['dsl'].sort_by { -_2 }.map { |k, v| "#{k} #{v}" }.join(', ')}); " \
               "render events sent: #{c['events'].empty? ? 'none' : c['events'].map { |k, v| "#{k} #{v}" }.join(', ')} " \
               "(counted with a subscriber, so what is sent while something listens).\n\n"
        out << "| mode | constant floor (M) | templates' own Ruby above floor (M) | templates floor above floor (M) | " \
               "view above floor (M) | view ÷ own Ruby, above floor | view above own Ruby per partial | " \
               "view above own Ruby per DSL call |\n| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        m.fetch("modes", MODES).each do |mode|
          floor = per_request.call("#{e} #{mode} constant")
          own = per_request.call("#{e} #{mode} own") - floor
          templates = per_request.call("#{e} #{mode} templates") - floor
          view = per_request.call("#{e} #{mode} view") - floor
          out << "| #{mode} | #{mi.call(floor)} | #{mi.call(own)} | #{mi.call(templates)} | #{mi.call(view)} | " \
                 "#{format('%.2f×', view / own)} | #{format('%.0f', (view - own) / partials)} | " \
                 "#{format('%.0f', (view - own) / dsl)} |\n"
        end
        out << "\nBy part, info level: self instructions per request of each stretch, and of the view above the " \
               "templates' own Ruby per partial render and per DSL call:\n\n"
        stretches = %w[constant own templates view]
        sums = stretches.to_h { |v| [v, parts(prefix, m["dumps"].fetch("#{e} info #{v}"))] }
        names = sums.values.flat_map(&:keys).uniq.sort_by { |p| -(sums["view"][p] - sums["own"][p]) }
        out << "| part | #{stretches.join(' | ')} | view − own | per partial | per DSL call |\n" \
               "| :--- |#{' ---: |' * (stretches.size + 3)}\n"
        names.each do |p|
          values = stretches.map { |v| sums[v][p] / n }
          diff = values[3] - values[1]
          out << "| #{p} | #{values.map { mi.call(_1) }.join(' | ')} | #{mi.call(diff)} | " \
                 "#{format('%.0f', diff / partials)} | #{format('%.0f', diff / dsl)} |\n"
        end
        out << "\n"
        (m.fetch("modes", MODES) & %w[debug regex]).each do |mode|
          info = parts(prefix, m["dumps"].fetch("#{e} info view"))
          other = parts(prefix, m["dumps"].fetch("#{e} #{mode} view"))
          top = (info.keys | other.keys).map { |p| [p, (other[p] - info[p]) / n] }.sort_by { -_2.abs }.first(6)
          out << "The view at #{mode} against info, by part (M per request): " \
                 "#{top.map { |p, d| "#{p} #{format('%+.2f', d / 1e6)}" }.join('; ')}.\n\n"
        end
      end
      ops_empty = instructions(prefix, m["empty_ops"])
      calls = n * OPS
      out << "## Operations alone\n\n| operation | instructions per call |\n| :--- | ---: |\n"
      m["ops"].each do |name, k|
        out << "| #{name.split(':', 2).last} | #{format('%.0f', (instructions(prefix, k) - ops_empty).fdiv(calls))} |\n"
      end
      out << "\n"
      out
    end
  end
end

if $PROGRAM_NAME == __FILE__
  if ARGV.include?("--child")
    require_relative "../support/bundle"
    args = ARGV - ["--child"]
    world = args.find { _1.start_with?("--world=") }&.split("=", 2)&.last || "jetson"
    requests = Integer(args.find { _1.start_with?("--requests=") }&.split("=", 2)&.last || 2)
    modes = (args.find { _1.start_with?("--modes=") }&.split("=", 2)&.last || BenchViews::Components::MODES.join(",")).split(",")
    BenchViews::Components.child(world, args.reject { _1.start_with?("--") }, requests, modes)
  else
    BenchViews::Components.run(ARGV)
  end
end
