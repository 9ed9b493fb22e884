# frozen_string_literal: true

require "json"
require "net/http"
require_relative "contenders"
require_relative "wrk"

module BenchViews
  # A bench/views/puma_world.rb process: one world and one encoder under puma
  # with a given number of threads, driven like a WorldProcess.
  class ServerProcess < WorldProcess
    SCRIPT = File.expand_path("puma_world.rb", __dir__)
    # Every server sees the same Host (post_url is in the bodies): the Rack
    # level's (Rack::MockRequest's default).
    HOST = "example.org"

    attr_reader :world, :encoder, :threads

    def initialize(world, encoder, threads, yjit:)
      @world = world
      @encoder = encoder
      @threads = threads
      super("#{world} (#{encoder} encoder, #{threads} thread#{threads > 1 ? 's' : ''})",
            yjit: yjit, script: SCRIPT, args: [world, encoder, threads.to_s])
    end

    def port = info.fetch(:port)

    # One GET over a new connection, with the SQL and cache counts of the
    # server while it ran.
    def get(path)
      call(:watch)
      response = Net::HTTP.start("127.0.0.1", port) do |http|
        http.get(path, "Host" => HOST, "Accept" => "application/json", "Accept-Encoding" => "identity")
      end
      { status: response.code.to_i, content_type: response["content-type"], body: response.body.to_s.b, **call(:unwatch) }
    end
  end

  # bench/views.rb --server: the contenders of bench/views.rb through puma
  # and wrk (see bench/README.md).
  class ServerBench
    THREADS = [1, 2].freeze
    MIN_REQUESTS = 5
    S = JetsonBench::Stats
    F = JetsonBench::Format

    def initialize(options, contenders, endpoints, yjit:, command:)
      @options = options
      @contenders = contenders
      @endpoints = endpoints
      @yjit = yjit
      @command = command
    end

    def run
      @t0 = now
      wrk = Wrk.version
      boot
      puts "Jbuilder views through puma and wrk — #{settings}"
      @facts = facts(wrk)
      @facts.each { |k, v| puts "  #{k}: #{v}" }
      check
      warm_up
      measure_rounds
      report
    ensure
      @servers&.each_value(&:close)
    end

    private

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    def runs(endpoint) = @contenders.select { |c| c.runs?(endpoint) }
    def server(contender, threads) = @servers.fetch([contender.world, contender.encoder, threads])

    def settings
      "#{@options.rounds} rounds; per contender, endpoint and thread count: #{@options.warmup} s of requests " \
        "unrecorded, then per round a fixed number of requests (≈ #{@options.time} s of them, bounded at " \
        "#{cap} s)#{@options.quick ? ' (--quick)' : ''}#{@options.filtered? ? ", filter: #{@options.filters.join(' | ')}" : ''}"
    end

    def cap = [@options.time * 3, @options.time + 2].max

    # Every (world, encoder) any contender needs, once per thread count;
    # booted together (nothing is timed yet).
    def boot
      keys = THREADS.flat_map { |t| @contenders.map { |c| [c.world, c.encoder, t] } }.uniq
      @servers = keys.to_h { |w, e, t| [[w, e, t], ServerProcess.new(w, e, t, yjit: @yjit)] }
      @servers.each_value(&:wait_ready)
      @servers.each_value do |s|
        abort "#{s.name}: YJIT is #{s.info[:yjit] ? 'on' : 'off'}, this process's #{@yjit ? 'on' : 'off'}" if s.info[:yjit] != @yjit
        origin = s.info[:jbuilder_template].to_s
        abort "#{s.name}: JbuilderTemplate from #{origin}" if s.world == "jbuilder" && !origin.include?("/jbuilder-")
        abort "#{s.name}: JbuilderTemplate from #{origin}" if s.world == "jetson" && !origin.include?("/lib/jetson/")
      end
      puts "#{@servers.size} puma servers ready after #{format('%.0f', now - @t0)} s"
    end

    def facts(wrk)
      cpu = File.read("/proc/cpuinfo").lines
      field = ->(name) { cpu.find { |l| l.start_with?(name) }&.split(":", 2)&.last&.strip || "?" }
      env = JetsonBench::Environment
      one = @servers.values.first.info
      [["Date", Time.now.utc.iso8601], ["Command", @command], ["Ruby", RUBY_DESCRIPTION], ["YJIT", @yjit ? "on" : "off"],
       ["Jetson", env.jetson_description],
       ["Gems", "puma #{one[:puma]}, actionpack #{env.gem_version('actionpack')}, #{::DATABASE == 'sqlite3' ? "sqlite3 #{one[:gems]['sqlite3']} (:memory:)" : ::DATABASE_INFO}, " \
                "jbuilder #{@servers.values.find { |s| s.world == 'jbuilder' }&.info&.dig(:gems, 'jbuilder')}, " \
                "props_template #{env.gem_version('props_template')} (oj #{env.gem_version('oj')}), jb #{env.gem_version('jb')}, " \
                "json #{one[:gems]['json']}"],
       ["Load", "#{wrk}: -t1, -c = puma threads, keep-alive, --latency, bench/views/wrk.lua"],
       ["CPU", "#{field.call('model name')} (cpu family #{field.call('cpu family')}, model #{field.call('model')}; " \
               "#{Etc.nprocessors} cores visible)"],
       ["Repo revision", env.git_revision], ["Settings", settings],
       ["Servers", @servers.values.map { |s| "#{s.name}: pid #{s.info[:pid]}, port #{s.port}" }.join("; ")]]
    end

    # -------------------------------------------------------------------
    # Checks over HTTP, before any timing.

    def check
      @checks = {} # [endpoint, threads, label] => result
      @notes = []
      @endpoints.each do |e|
        puts
        puts "== #{e}: #{ENDPOINTS[e]}"
        THREADS.each { |t| check_endpoint(e, t) }
      end
    end

    def check_endpoint(endpoint, threads)
      bodies = {}
      runs(endpoint).each do |c|
        srv = server(c, threads)
        warm = endpoint == "cached" && c.kind != :constant
        cold = srv.get(c.path(endpoint)) if warm
        r = srv.get(c.path(endpoint))
        name = "#{c.label} (#{endpoint}, #{threads} thread#{threads > 1 ? 's' : ''})"
        abort "#{name}: status #{r[:status]}" unless r[:status] == 200 && (!cold || cold[:status] == 200)
        abort "#{name}: Content-Type #{r[:content_type]}" unless r[:content_type] == "application/json; charset=utf-8"
        abort "#{name}: the cold and warm responses differ: #{S.diff_summary(r[:body], cold[:body])}" if cold && r[:body] != cold[:body]
        bodies[c.label] = r[:body]
        if c.label == GEM
          @reference ||= {}
          first = (@reference[endpoint] ||= r[:body])
          abort "#{name}: differs from the 1-thread server's: #{S.diff_summary(r[:body], first)}" if r[:body] != first
          @servers.each_value { |s| s.call(:floor_body, endpoint, first) }
        end
        r[:output] = output(c, r[:body], bodies, name)
        cache = warm ? "; cache: cold wrote #{cold[:writes]}, warm read #{r[:reads]}, hit #{r[:hits]}, wrote #{r[:writes]}" : ""
        puts "  #{c.label} [#{srv.name}]: #{r[:status]}, #{r[:body].bytesize} bytes, #{r[:sql]} SQL, #{r[:output]}#{cache}"
        if warm && (r[:writes] != 0 || r[:hits] < 100)
          warn "WARNING: #{name}: the warm request is not all hits#{cache}"
          r[:output] += " (cache not warm)"
        end
        @checks[[endpoint, threads, c.label]] = r.except(:body).merge(bytes: r[:body].bytesize)
      end
    end

    # Jetson's bodies (and the floors') byte for byte against theirs, abort
    # otherwise; the others after JSON.parse against the gem's.
    def output(contender, body, bodies, name)
      reference = bodies.fetch(GEM)
      case contender.check
      when :reference then "reference"
      when Array
        against = contender.check.last
        expected = bodies.fetch(against)
        abort "MISMATCH: #{name} is not byte-identical to #{against}: #{S.diff_summary(body, expected)}" if body != expected
        against == GEM ? "identical" : "identical to #{against}"
      else
        return "identical" if body == reference

        if (JSON.parse(body) rescue :unparseable) == JSON.parse(reference) # rubocop:disable Style/RescueModifier
          @notes << "#{name}: equal to the jbuilder gem's after JSON.parse; bytes differ: #{S.diff_summary(body, reference)}"
          "equal after parse"
        else
          warn "WARNING: #{name} differs from the jbuilder gem's after JSON.parse: #{S.diff_summary(body, reference)}"
          "MISMATCH"
        end
      end
    end

    # -------------------------------------------------------------------
    # Timing.

    # One wrk run of a contender: its server idle and collected first, and
    # idle again after (wrk drops the connections it stops with; a request
    # still running there would overlap the next run).
    def http_run(endpoint, threads, contender, requests:, seconds:)
      srv = server(contender, threads)
      before = srv.call(:settle, true)
      r = Wrk.run(port: srv.port, path: contender.path(endpoint), connections: threads, requests: requests, seconds: seconds)
      after = srv.call(:settle, false)
      name = "#{contender.label} (#{endpoint}, #{threads} threads)"
      abort "#{name}: #{r[:non200]} responses not 200 under wrk" if r[:non200].positive?
      abort "#{name}: wrk socket errors: #{r[:errors]}" if r[:errors]
      abort "#{name}: puma counted fewer requests than wrk" if after[:requests] - before[:requests] < r[:responses]
      r.merge(gc: after.to_h { |k, v| [k, v - before[k]] })
    end

    def jobs = @endpoints.flat_map { |e| THREADS.flat_map { |t| runs(e).map { |c| [e, t, c] } } }

    # Each contender's request count: what it served in ≈ --time seconds
    # during its warmup, at least MIN_REQUESTS; the same in every round.
    def warm_up
      puts
      puts "warming up: #{@options.warmup} s of requests per contender, endpoint and thread count (not recorded)"
      @requests = {}
      jobs.each do |e, t, c|
        r = http_run(e, t, c, requests: 0, seconds: @options.warmup)
        @requests[[e, t, c.label]] = [(r[:rps] * @options.time).round, MIN_REQUESTS].max
      end
      puts "checks and warmup done after #{format('%.0f', now - @t0)} s"
    end

    # A round: per endpoint, every contender over HTTP at both thread
    # counts, and at the Rack level in its 1-thread server (its requests
    # through the app on the server's main thread, as bench/views.rb times
    # them), in an order rotated every round.
    def measure_rounds
      @results = Hash.new { |h, k| h[k] = [] } # [endpoint, threads or :rack, label] => [result per round]
      @options.rounds.times do |round|
        started = now
        @endpoints.each do |e|
          slots = THREADS.flat_map { |t| runs(e).map { |c| [t, c] } } + runs(e).map { |c| [:rack, c] }
          slots.rotate(round).each do |t, c|
            n = @requests[[e, t == :rack ? 1 : t, c.label]]
            r = t == :rack ? rack(e, c, n) : http_run(e, t, c, requests: n, seconds: cap)
            @results[[e, t, c.label]] << r
            next unless @options.verbose

            puts "    #{e} #{t == :rack ? 'Rack level' : "#{t}t"} #{c.label}: #{F.ips(r[:rps])} req/s " \
                 "(#{r[:responses]}/#{n} in #{format('%.3f', r[:seconds])} s#{r[:wrk_rps] ? "; wrk: #{r[:wrk_rps]}" : ''})" +
                 (r[:p50] ? ", p50 #{r[:p50]} ms, p99 #{r[:p99]} ms" : "")
          end
        end
        puts "round #{round + 1}/#{@options.rounds}: #{format('%.1f', now - started)} s"
      end
      puts "done after #{format('%.0f', now - @t0)} s"
    end

    def rack(endpoint, contender, n)
      srv = server(contender, 1)
      srv.call(:settle, false)
      count, seconds, gc = srv.call(:rack, contender.path(endpoint), n)
      { responses: count, seconds: seconds, rps: count / seconds, gc: gc }
    end

    # -------------------------------------------------------------------
    # Report.

    def ratios(key, gem_key)
      @results[key].zip(@results[gem_key]).map { |a, g| a[:rps] / g[:rps] }
    end

    def spread(values)
      shown = [S.median(values), values.min, values.max].map { |v| (v * 100).floor / 100.0 }
      format("%.2f× (%.2f–%.2f)", *shown)
    end

    def median_of(key, field) = S.median(@results[key].map { |r| r[field] })

    # GC in the server during the runs: ms per request, major collections per run (medians).
    def gc_text(key)
      ms = S.median(@results[key].map { |r| r[:gc][:time].fdiv(r[:responses]) })
      format("%.2f, %g", ms, S.median(@results[key].map { |r| r[:gc][:major_gc_count] }))
    end

    VIA = { rack: "Rack (in-process)", 1 => "puma, 1 thread", 2 => "puma, 2 threads" }.freeze

    def report
      tables = {}
      lines = {}
      @endpoints.each do |e|
        t = JetsonBench::Table.new(["contender", "via", "req/s", "±", "÷ gem (min–max)", "÷ Rack (min–max)", "p50 ms",
                                    "p99 ms", "requests", "GC ms/req, majors/run", "output"])
        [:rack, *THREADS].each do |th|
          runs(e).each do |c|
            key = [e, th, c.label]
            rps = @results[key].map { |r| r[:rps] }
            half = S.half_iqr(rps)
            n = @requests[[e, th == :rack ? 1 : th, c.label]]
            capped = @results[key].count { |r| r[:responses] < n }
            http = th != :rack
            t << [c.label, VIA[th], F.ips(S.median(rps)), half ? F.percent(100.0 * half / S.median(rps)) : "-",
                  c.label == GEM ? "1" : spread(ratios(key, [e, th, GEM])), http ? spread(ratios(key, [e, :rack, c.label])) : "",
                  http ? format("%.2f", median_of(key, :p50)) : "", http ? format("%.2f", median_of(key, :p99)) : "",
                  "#{n}#{capped.positive? ? " (#{capped} capped)" : ''}", gc_text(key), http ? @checks[[e, th, c.label]][:output] : ""]
          end
        end
        tables[e] = t
        lines[e] = endpoint_lines(e)
      end
      notes = explain + @notes
      puts
      puts "=" * 78
      @endpoints.each do |e|
        puts
        puts "#{e}: #{ENDPOINTS[e]}"
        lines[e].each { |l| puts "  #{l}" }
        puts tables[e].to_console(indent: "  ")
      end
      puts
      notes.each { |n| puts "- #{n}" }
      write(tables, lines, notes) if @options.write
    end

    # The order of the contenders through puma against the Rack level's
    # (same run), and Jetson's p99 against the gem's p50.
    def endpoint_lines(endpoint)
      out = ["Reference body (the jbuilder gem's): #{@reference[endpoint].bytesize} bytes; every response 200 " \
             "application/json; charset=utf-8 (checked over HTTP)."]
      rack = runs(endpoint).to_h { |c| [c.label, median_of([endpoint, :rack, c.label], :rps)] }
      THREADS.each do |th|
        rps = runs(endpoint).to_h { |c| [c.label, median_of([endpoint, th, c.label], :rps)] }
        inverted = rps.keys.combination(2).select do |a, b|
          [rack[a], rack[b]].max / [rack[a], rack[b]].min > 1.1 && (rack[a] > rack[b]) != (rps[a] > rps[b])
        end
        out << "#{VIA[th]}: order of the contenders by req/s against the Rack level's (every pair more than 10% apart " \
               "there): #{inverted.empty? ? 'the same' : "#{inverted.size} pair(s) swapped: #{inverted.map { |x, y| "#{x} / #{y}" }.join('; ')}"}."
        jetson = [endpoint, th, "Jetson (jetson/jbuilder)"]
        next unless @results.key?(jetson)

        p99 = median_of(jetson, :p99)
        p50 = median_of([endpoint, th, GEM], :p50)
        out << "#{VIA[th]}: Jetson's p99 #{format('%.2f', p99)} ms is #{p99 < p50 ? 'below' : 'not below'} " \
               "the jbuilder gem's p50 #{format('%.2f', p50)} ms."
      end
      out
    end

    def explain
      [
        "Each world (one view layer) and encoder is a puma #{@servers.values.first.info[:puma]} server of its own " \
        "(bench/views/puma_world.rb), booted from kit/views_app.rb as the Rack-level worlds are, in single mode " \
        "on 127.0.0.1, once with min = max = 1 thread and once with 2. ActiveSupport.json_encoder is process-wide, not " \
        "per thread, so it is set once per server: the render json: Hashes contender with Jetson::RailsEncoder has " \
        "servers of their own.",
        "puma rows: wrk -t1 with one keep-alive connection per puma thread. A run is a fixed number of requests (the " \
        "requests column: what the contender served in ≈ #{@options.time} s of its warmup at that thread count, at " \
        "least #{MIN_REQUESTS}), bounded at #{cap} s; bench/views/wrk.lua counts the responses, stops wrk after the last " \
        "and times them with its own clock (first request written to last response). \"capped\": rounds that hit the bound.",
        "Rack (in-process) rows: the same number of requests as at 1 thread, in the contender's 1-thread server process, " \
        "on its main thread, through the app as bench/views.rb times them (Rack::MockRequest env, body iterated; no " \
        "socket, no puma), after GC.start, in the same rounds: the Rack-level numbers of this run, for the order check.",
        "req/s: requests ÷ that time, the median over #{@options.rounds} rounds; ±: half the interquartile range. " \
        "÷ gem: ÷ the jbuilder gem's req/s in the same row group and round; ÷ Rack: ÷ the contender's own Rack " \
        "(in-process) req/s in the same round; medians (min–max), truncated.",
        "p50/p99: wrk's Latency Distribution lines (request written to response read; wrk 4.1 adds its coordinated-" \
        "omission correction for responses slower than twice the mean interval), the median over the rounds. " \
        "With few requests per run, p99 is the slowest one. GC ms/req, majors/run: GC.stat's time (whole ms) " \
        "over the run ÷ its requests, and its major collections, in the server process (the GC.start before the run " \
        "excluded); medians. A request that a major collection lands in is a slow one: p99 shows them.",
        "Before each run the server finishes any request still running and runs GC.start; after a puma run, it " \
        "finishes the request wrk left behind. Before the rounds, every contender gets #{@options.warmup} s of " \
        "unrecorded requests per endpoint and thread count; each round rotates the order of the runs.",
        "Checked over HTTP before timing (Net::HTTP, Accept: application/json): status 200, Content-Type, bodies: " \
        "Jetson's views byte-identical to the jbuilder gem's and Jetson::RailsEncoder's render json: to ActiveSupport's " \
        "(the run aborts otherwise), the floors byte-identical to the gem's, props_template and jb after JSON.parse; " \
        "cached: a cold request, then the warm one compared and required to be all hits.",
        "wrk, the parent and the servers share the machine's #{Etc.nprocessors} cores: at 2 threads wrk and puma " \
        "compete for them, as a load generator on the same host does."
      ]
    end

    def write(tables, lines, notes)
      name = ::DATABASE == "sqlite3" ? "views-server.md" : "views-server-#{::DATABASE}.md"
      path = File.expand_path("../results/#{name}", __dir__)
      md = +"# Jbuilder views through puma and wrk\n\n"
      @facts.each { |k, v| md << "- **#{k}**: #{k == 'Command' ? "`#{v}`" : v}\n" }
      @endpoints.each do |e|
        md << "\n## #{e}\n\n#{ENDPOINTS[e]}\n\n#{lines[e].map { |l| "- #{l}\n" }.join}\n#{tables[e].to_markdown}\n"
      end
      md << "\n## Notes\n\n#{notes.map { |n| "- #{n}\n" }.join}"
      File.write("#{path}.tmp", md)
      File.rename("#{path}.tmp", path)
      puts "\nwrote #{path}"
    end
  end
end
