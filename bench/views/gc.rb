# frozen_string_literal: true

# What the GC does during bench/views.rb's requests: for each endpoint, the
# view and the floors, each in a fresh process of its world, N requests after
# a warmup and a GC.start: minor and major GCs (majors by reason), objects
# promoted to the old generation per minor GC, ms per request.
#
#   bundle exec ruby --yjit bench/views/gc.rb [--world=jetson] [--requests=N] [--no-write] [ENDPOINT ...]
#
# Each case runs twice: as the app is, and with the controller taken out of
# ActiveSupport::ExecutionContext before its action runs (a diagnostic, not
# something an app should do). Since Rails 7.1 ActionController keeps the
# controller there for the whole request, in a Hash old enough to be in the
# old generation; a minor GC during the request then promotes everything the
# controller's ivars reach (@posts, every record, its attribute set and raw
# row, the preloaded associations). The second run shows how much of the
# promotion, and of the major GCs, is that. Results:
# bench/results/views-gc-WORLD.md.

$stdout.sync = true
require "json"
require "open3"
require "rbconfig"
require_relative "../support/report"
require_relative "contenders"

module BenchViews
  module GcReport
    module_function

    # label => the kind of request (Contender#path makes its path)
    KINDS = { "view" => :views, "floor: constant String" => :constant, "floor: post_url, associations" => :urls,
              "floor: reads" => :reads }.freeze

    # In the child: boot the world, make the requests, print one JSON line.
    def child(world, path, requests, detach)
      require_relative "world"
      BenchViews.boot(world)
      World.encoder = "stock"
      World.own_floor_bodies
      if detach
        ::ActionController::Base.prepend(Module.new do
          def send_action(...)
            # A Hash before Rails 8.1, a Record holding the Hash from 8.1 on.
            context = ::ActiveSupport::IsolatedExecutionState[:active_support_execution_context]
            (context.respond_to?(:store) ? context.store : context)&.delete(:controller)
            super
          end
        end)
      end
      20.times { World.request(path) }
      GC.start
      majors = Hash.new(0)
      promoted = 0
      minors_alone = 0
      before = GC.stat
      started = JetsonBench::Slices.now
      requests.times do
        a = GC.stat
        World.request(path)
        b = GC.stat
        if b[:major_gc_count] > a[:major_gc_count]
          majors[GC.latest_gc_info(:major_by).to_s] += b[:major_gc_count] - a[:major_gc_count]
        elsif b[:minor_gc_count] > a[:minor_gc_count]
          promoted += b[:old_objects] - a[:old_objects]
          minors_alone += b[:minor_gc_count] - a[:minor_gc_count]
        end
      end
      elapsed = JetsonBench::Slices.now - started
      after = GC.stat
      puts JSON.generate(ms: elapsed * 1000 / requests, minors: after[:minor_gc_count] - before[:minor_gc_count],
                         majors: majors, promoted_per_minor: minors_alone.zero? ? 0 : promoted / minors_alone,
                         objects: (after[:total_allocated_objects] - before[:total_allocated_objects]) / requests)
    end

    def measure(world, path, requests, detach)
      args = [RbConfig.ruby]
      args << "--yjit" if JetsonBench::Environment.yjit?
      args += [__FILE__, "--child=#{world},#{path},#{requests},#{detach}"]
      out, status = Open3.capture2(*args)
      abort "bench/views/gc.rb: #{path} failed" unless status.success?
      JSON.parse(out.lines.last)
    end

    def run(argv)
      world = argv.find { _1.start_with?("--world=") }&.split("=", 2)&.last || "jetson"
      requests = Integer(argv.find { _1.start_with?("--requests=") }&.split("=", 2)&.last || 200)
      endpoints = argv.reject { _1.start_with?("--") }
      endpoints = %w[index nested cached] if endpoints.empty?
      command = "bundle exec ruby#{JetsonBench::Environment.yjit? ? ' --yjit' : ''} bench/views/gc.rb #{argv.join(' ')}".strip
      out = +JetsonBench::Report.head("The GC during bench/views.rb's requests: the #{world} world", command)
      out << "- #{requests} requests per case, each case a fresh process (warmup 20 requests, then GC.start). " \
             "\"promoted per minor GC\": old objects gained across the requests that had minor GCs only, " \
             "per minor GC. \"controller detached\": the same with the controller taken out of " \
             "ActiveSupport::ExecutionContext before the action runs (a diagnostic).\n\n"
      endpoints.each do |e|
        out << "## #{e}\n\n"
        out << "| request | ms/request | objects/request | minor GCs | major GCs (by reason) | promoted per minor GC " \
               "| controller detached: major GCs | promoted per minor GC |\n"
        out << "| :--- | ---: | ---: | ---: | :--- | ---: | :--- | ---: |\n"
        KINDS.each do |label, kind|
          next if e == "cached" && kind == :urls

          path = Contender.new(kind: kind).path(e)
          as_is = measure(world, path, requests, false)
          detached = measure(world, path, requests, true)
          majors = ->(r) { r["majors"].empty? ? "0" : r["majors"].map { |why, n| "#{n} (#{why})" }.join(", ") }
          out << format("| %s | %.2f | %d | %d | %s | %d | %s | %d |\n", label, as_is["ms"], as_is["objects"],
                        as_is["minors"], majors.call(as_is), as_is["promoted_per_minor"], majors.call(detached),
                        detached["promoted_per_minor"])
          $stderr.print "."
        end
        out << "\n"
      end
      $stderr.puts
      JetsonBench::Report.publish(out, "views-gc-#{world}.md", argv)
    end
  end
end

if $PROGRAM_NAME == __FILE__
  if (spec = ARGV.find { _1.start_with?("--child=") })
    world, path, requests, detach = spec.split("=", 2).last.split(",")
    BenchViews::GcReport.child(world, path, Integer(requests), detach == "true")
  else
    BenchViews::GcReport.run(ARGV)
  end
end
