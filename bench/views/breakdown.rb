# frozen_string_literal: true

# Where a view request's time goes: one world of bench/views.rb (jetson by
# default), one endpoint at a time, in this process.
#
#   bundle exec ruby --yjit bench/views/breakdown.rb [--world=jetson] [--requests=N] [--no-write] [ENDPOINT ...]
#
# For each endpoint (index and nested by default):
# - ms per request of the view and of the floors (constant String; reads +
#   constant String), in rounds, GC.start before each slice;
# - the partials a request renders (counted once with a TracePoint on the
#   templates' methods, before anything is timed);
# - objects allocated per request and per partial above the constant floor;
# - a stackprof wall-clock profile of the view's requests, each sample put in
#   one part (PARTS, first match from the top of the list; a sample's whole
#   stack is looked at, so "association readers" holds a reader's own cost
#   wherever it was called from), shown as ms per request and µs per partial.
# The results go to bench/results/views-breakdown-WORLD.md (--no-write: only
# printed). Samples are wall clock under YJIT: read them as shares of a
# request, not as instruction counts (bench/views.rb --callgrind gives those).

$stdout.sync = true
require_relative "../support/bundle"
require "stackprof"
require_relative "world"
require_relative "../support/report"

module BenchViews
  module Breakdown
    module_function

    GC_FRAMES = ["(garbage collection)", "(marking)", "(sweeping)"].freeze
    # ActionView names a template's compiled method after its path under
    # Rails.root (kit/views_app/bench/: views/LAYER/...).
    TEMPLATE_METHOD = "_views_"
    TEMPLATE = /\A#<Class:0x\h+>##{TEMPLATE_METHOD}|_json_jbuilder__/
    # [part, pattern over frame names]; a sample goes to the first part one
    # of its frames matches.
    PARTS = [
      ["loading records (SQL, instantiation, preloading)",
       /ActiveRecord::Relation#(load|exec_queries|exec_main_query)|Preloader|ActiveRecord::Result|SQLite3|instantiate_records|Querying#_query_by_sql/],
      ["URL helpers (post_url)",
       /define_url_helper|NamedRouteCollection|RouteSet#(url_for|generate)|Journey::(Formatter|Visitors)|HelperMethodBuilder/],
      ["association readers", /GeneratedAssociationMethods|ActiveRecord::Associations|CollectionProxy|association_instance/],
      ["attribute reads and casts in Ruby",
       /ActiveRecord::AttributeMethods|ActiveModel::(LazyAttributeSet|AttributeSet|Attribute|Type)|TimeZoneConversion|TimeWithZone/]
    ].freeze
    VIEW = /ActionView::|JbuilderTemplate|Jetson::|Jbuilder|PartialRenderer/
    # Inside the view, the view layer's samples by the innermost frame (from
    # the leaf outward, stopping at a template's method) that names one of
    # these: the render events, Jetson's Ruby side, Jetson's native builder
    # (its C methods: DSL calls, nodes, partial runs), ActionView's own
    # methods, the gem's builder.
    VIEW_PARTS = [
      ["view layer: render events (ActiveSupport::Notifications)", /ActiveSupport::Notifications|Fanout|Instrumenter/],
      ["view layer: Jetson's Ruby side (lib/jetson/views, JbuilderTemplate in Ruby)",
       /Jetson::Views::|Jetson::Rails::Diagnostics|JbuilderTemplate#(_render_partial|_single_partial_plan|_partials|_fragment_cache|_active_model\?|_collection\?|_render_partial_with_options|_render_collection|_inline_partial_plan|_set_inline_partial|initialize|target!)\z/],
      ["view layer: Jetson's native builder (DSL calls, nodes, partial runs)", /Jetson::Builder|JbuilderTemplate#/],
      ["view layer: ActionView (templates, lookups, view context)", /ActionView::/],
      ["view layer: the jbuilder gem's builder", /Jbuilder/]
    ].freeze

    def part_of(names)
      return "garbage collection" if GC_FRAMES.include?(names.first)

      PARTS.each { |part, pattern| return part if names.any? { |n| pattern.match?(n) } }
      leaf = names.first
      return "the templates' own Ruby (locals, calls)" if TEMPLATE.match?(leaf)

      if names.any? { |n| TEMPLATE.match?(n) || n.start_with?("ActionView::") }
        names.each do |n|
          break if TEMPLATE.match?(n)

          VIEW_PARTS.each { |part, pattern| return part if pattern.match?(n) }
        end
      end
      return "the view layer (builder, partials, lookups)" if VIEW.match?(leaf)
      return "other code the view calls" if names.any? { |n| TEMPLATE.match?(n) }

      "the request outside the view (Rack, routing, controller, response)"
    end

    def ms_per_request(path, requests)
      GC.start
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      requests.times { World.request(path) }
      (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000.0 / requests
    end

    def allocations(path, requests)
      World.request(path)
      before = GC.stat(:total_allocated_objects)
      requests.times { World.request(path) }
      (GC.stat(:total_allocated_objects) - before).fdiv(requests)
    end

    def partials(path)
      count = 0
      trace = TracePoint.new(:call) { |tp| count += 1 if tp.method_id.to_s.start_with?(TEMPLATE_METHOD) }
      trace.enable { World.request(path) }
      count - 1 # the endpoint's own template
    end

    def profile(path, requests)
      data = StackProf.run(mode: :wall, interval: 100, raw: true) { requests.times { World.request(path) } }
      frames = data[:frames]
      counts = Hash.new(0)
      leaves = Hash.new { |h, k| h[k] = Hash.new(0) }
      raw = data[:raw]
      i = 0
      while i < raw.size
        depth = raw[i]
        stack = raw[i + 1, depth].reverse.map { |id| frames.dig(id, :name).to_s }
        part = part_of(stack)
        counts[part] += raw[i + 1 + depth]
        leaves[part][stack.first] += raw[i + 1 + depth]
        i += depth + 2
      end
      [counts, leaves]
    end

    def median(values) = values.sort[values.size / 2]

    def endpoint(name, requests, rounds)
      view = name == "index" ? "/posts.json" : "/posts/#{name}.json"
      constant = view.sub("/posts", "/constant").sub("/constant.json", "/constant.json")
      reads = constant.sub("/constant", "/reads")
      own = constant.sub("/constant", "/own")
      Kit::ViewsApp::Bench::FLOOR_BODIES[name] = World.check(view)[:body].freeze
      paths = { "view" => view, "floor: constant String" => constant }
      paths["floor: reads + constant String"] = reads unless name == "app" # app's reads are the own-Ruby row's
      paths["reference: the templates' own Ruby + constant String"] = own unless name == "cached"
      paths.each_value { |p| 50.times { World.request(p) } }
      times = paths.transform_values { [] }
      rounds.times { |r| paths.keys.rotate(r).each { |k| times[k] << ms_per_request(paths[k], requests) } }
      ms = times.transform_values { median(_1) }
      allocs = paths.transform_values { allocations(_1, requests) }
      samples, leaves = profile(view, requests * 3)
      { name: name, view: view, ms: ms, allocs: allocs, samples: samples, leaves: leaves }
    end

    # value per partial of the request, "n/a" for a request without
    # partials (a warm cached collection renders none).
    def per_partial(value, result, pattern)
      result[:partials].positive? ? format(pattern, value / result[:partials]) : "n/a"
    end

    def report(results, world, command)
      out = +JetsonBench::Report.head("Where a view request's time goes: the #{world} world", command)
      out << "- **Gems**: #{%w[actionview activerecord sqlite3].map { "#{_1} #{Gem.loaded_specs[_1]&.version}" }.join(', ')}\n\n"
      results.each do |r|
        floor = r[:ms]["floor: constant String"]
        out << "## #{r[:name]}: #{r[:partials]} partials a request\n\n"
        out << "| request | ms | ms above the constant floor | objects | objects above the floor, per partial |\n"
        out << "| :--- | ---: | ---: | ---: | ---: |\n"
        r[:ms].each do |label, ms|
          objects = r[:allocs][label]
          above = objects - r[:allocs]["floor: constant String"]
          out << format("| %s | %.2f | %.2f | %.0f | %s |\n", label, ms, ms - floor, objects, per_partial(above, r, "%.1f"))
        end
        total = r[:samples].values.sum.to_f
        out << "\nThe view's request by part (stackprof, wall clock, #{total.to_i} samples):\n\n"
        out << "| part | share | ms per request | µs per partial | where (the innermost frames, by samples) |\n"
        out << "| :--- | ---: | ---: | ---: | :--- |\n"
        r[:samples].sort_by { -_2 }.each do |part, n|
          ms = n / total * r[:ms]["view"]
          top = r[:leaves][part].sort_by { -_2 }.first(3).map { |leaf, k| "#{leaf.gsub('|', '\\|')} #{(k * 100 / n.to_f).round}%" }
          out << format("| %s | %.1f%% | %.2f | %s | %s |\n", part, n * 100 / total, ms, per_partial(ms * 1000, r, "%.2f"),
                        top.join("; "))
        end
        out << "\n"
      end
      out
    end

    def run(argv)
      world = argv.find { _1.start_with?("--world=") }&.split("=", 2)&.last || "jetson"
      requests = Integer(argv.find { _1.start_with?("--requests=") }&.split("=", 2)&.last || 20)
      endpoints = argv.reject { _1.start_with?("--") }
      endpoints = %w[index nested] if endpoints.empty?
      BenchViews.boot(world)
      World.encoder = "stock"
      results = endpoints.map { |name| endpoint(name, requests, 5) }
      # The partials counted last: once a TracePoint has been enabled the
      # interpreter keeps calling vm_trace and YJIT's code is thrown away,
      # which every later timing and profile would show.
      results.each { |r| r[:partials] = partials(r[:view]) }
      command = "bundle exec ruby#{RubyVM::YJIT.enabled? ? ' --yjit' : ''} bench/views/breakdown.rb #{argv.join(' ')}".strip
      JetsonBench::Report.publish(report(results, world, command), "views-breakdown-#{world}.md", argv)
    end
  end
end

BenchViews::Breakdown.run(ARGV) if $PROGRAM_NAME == __FILE__
