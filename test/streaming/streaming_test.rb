# frozen_string_literal: true

require "minitest/autorun"
require "json"
require "tmpdir"
require "fileutils"
require_relative "../../kit/streaming_app/server"
require_relative "../../kit/streaming_app/database"

# `render json_stream:` through a real server: Kit::StreamingApp under puma
# on a loopback port (a child process), requested with Net::HTTP reading the
# chunked body, on SQLite and on PostgreSQL (the server
# kit/database_servers.rb starts; skipped with the reason printed where it
# cannot run).
#
# Two worlds serve the same database: "jetson" (jetson/jbuilder views,
# Jetson::RailsEncoder installed) and "jbuilder" (the jbuilder gem, ActiveSupport's
# own encoder). Every stream is compared with the non-streaming render of the
# same records in its own app (`render json:`, the .json.jbuilder view with
# the same partial), and the jetson world's streams with the jbuilder
# world's references too: the stock encoder's and the jbuilder gem's bytes.
module StreamingBehaviour
  ROWS = 60_000         # the fault at element 50,000 needs them
  FAULT_ROWS = 150_000  # a stream of ~25 MB: more than loopback's socket buffers hold
  COMPARED_ROWS = 8_000
  KINDS = %w[records options partial envelope enumerator].freeze
  # render json_stream: true (a .json.jbuilder view's top-level collection
  # streamed) is jetson/jbuilder's: the jbuilder world renders these views
  # whole, as the reference.
  VIEW_KINDS = %w[view view_array].freeze

  def self.included(base)
    base.extend(ClassMethods)
  end

  module ClassMethods
    attr_reader :dir

    # One database and the servers of a test class, made by the first test
    # that runs (the database servers stop at exit, and Minitest runs the
    # tests in its own at_exit, after theirs would) and stopped when the run
    # ends (and by the servers themselves if this process dies: see
    # kit/streaming_app/server.rb).
    def database
      return @database if defined?(@database)

      @dir = Dir.mktmpdir("jetson-streaming-")
      Minitest.after_run { teardown_world }
      @database = make_database(@dir)
      Kit::StreamingApp::Database.fill(@database, "orders", ROWS) if @database
      @database
    end

    def server(world)
      servers[world] ||= begin
        encoder = world == "jetson" ? "jetson" : "stock"
        Kit::StreamingApp::Server.start(world: world, encoder: encoder, database: @database,
                                        log_path: File.join(@dir, "#{world}.log"))
      end
    end

    def servers = @servers ||= {}

    def teardown_world
      @servers&.each_value(&:stop)
      @servers = nil
      # (PostgreSQL's cluster is thrown away with its server.)
      FileUtils.rm_rf(@dir) if @dir
    end
  end

  def setup
    skip "#{self.class::DATABASE_NAME} unavailable: #{self.class.skip_reason}" unless self.class.database
    server.json("/stats?reset=1")
    server("jbuilder").json("/stats?reset=1") if self.class.servers.key?("jbuilder")
  end

  def server(world = "jetson") = self.class.server(world)

  def only(list)
    assert_equal 1, list.size, list.inspect
    list.first
  end

  def test_streams_are_the_bytes_of_the_non_streaming_render
    stock = {}
    %w[jbuilder jetson].each do |world|
      (world == "jetson" ? KINDS + VIEW_KINDS : KINDS).each do |kind|
        query = "count=#{COMPARED_ROWS}&batch_size=500"
        server(world).json("/stats?reset=1")
        streamed = server(world).get("/stream/#{kind}?#{query}")
        batches = server(world).json("/stats")["batches"].count { |b| b["table"] == "Order" }
        reference = server(world).get("/reference/#{kind}?#{query}")
        label = "#{world} world, #{kind}"
        assert_nil streamed.error, label
        assert_equal 200, streamed.status, label
        assert_equal 200, reference.status, label
        assert_equal ["chunked"], streamed.headers["transfer-encoding"], label
        assert_equal ["no-cache"], streamed.headers["cache-control"], label
        assert_nil streamed.headers["etag"], label
        assert_equal reference.headers["content-type"], streamed.headers["content-type"], label
        assert_operator streamed.chunks, :>, 1, label
        assert_equal reference.body.bytesize, streamed.body.bytesize, label
        assert reference.body == streamed.body, "#{label}: streamed bytes differ from the non-streaming render"
        # Read in batches (the enumerator's are find_each's 333), the last
        # query finding none past the last row.
        assert_operator batches, :>=, COMPARED_ROWS / 500, label
        # The stock encoder's and the jbuilder gem's bytes (jbuilder world first).
        if VIEW_KINDS.include?(kind)
          reference_world = server("jbuilder").get("/reference/#{kind}?#{query}")
          assert reference_world.body == streamed.body, "#{label}: differs from the jbuilder gem's view"
        elsif world == "jbuilder"
          stock[kind] = reference.body
        else
          assert stock[kind] == streamed.body, "#{label}: differs from the jbuilder world's (stock, gem) bytes"
        end
        parsed = JSON.parse(streamed.body)
        rows = { "envelope" => parsed.is_a?(Hash) && parsed["data"], "view" => parsed.is_a?(Hash) && parsed["dataRows"] }
               .fetch(kind, parsed)
        assert_equal COMPARED_ROWS, rows.size, label
      end
    end
  end

  def test_the_first_chunk_arrives_before_the_last_batch_is_queried
    response = server.get("/stream/partial?batch_size=1000")
    assert_nil response.error
    assert_equal ROWS, JSON.parse(response.body).size
    stats = server.json("/stats")
    batches = stats["batches"].select { |b| b["table"] == "Order" }
    assert_equal ROWS / 1000 + 1, batches.size # the last query finds no more rows
    assert_operator response.chunks, :>, 1
    assert_operator response.first_chunk_at, :<, batches.last["at"],
                    "the first chunk arrived after the last batch was queried"
    # The executor (and with it the connection lease) stays open while the
    # server iterates the body, as ActionDispatch::Executor's BodyProxy keeps it.
    assert batches.all? { |b| b["executor"] }, "a batch was queried outside the executor"
    assert_equal 0, server.stats_until { |s| s["busy"].zero? }["busy"]
  end

  # ActionDispatch reports the error a template error wraps (ExceptionWrapper),
  # in both worlds alike.
  def test_a_partial_raising_at_element_1_is_an_ordinary_error_response
    %w[jetson jbuilder].each do |world|
      response = server(world).get("/stream/partial?raise_at=1")
      assert_nil response.error, world
      assert_equal 500, response.status, world
      assert_equal({ "status" => 500, "error" => "Internal Server Error" }, JSON.parse(response.body), world)
      stats = server(world).stats_until { |s| s["reports"].any? && s["busy"].zero? }
      report = only(stats["reports"])
      assert_equal ["ArgumentError", "partial raised at order 1", false, "application.action_dispatch"],
                   report.values_at("class", "message", "handled", "source"), world
      assert_equal 0, stats["busy"], world
    end
  end

  def test_a_partial_raising_at_element_50000_cuts_the_body_and_reports
    response = server.get("/stream/partial?raise_at=50000")
    assert_equal 200, response.status
    refute_nil response.error, "the body ended as a complete chunked response"
    assert_kind_of EOFError, response.error
    assert_raises(JSON::ParserError) { JSON.parse(response.body) }
    # What arrived is the start of the real document, up to a batch before the fault.
    reference = server.get("/reference/partial?count=49999").body
    assert reference.start_with?(response.body), "the bytes before the fault differ from the document's"
    assert_operator response.body.bytesize, :>, reference.bytesize / 2

    stats = server.stats_until { |s| s["reports"].any? && s["busy"].zero? }
    report = only(stats["reports"])
    # Reported as ActionDispatch reports an error before the first byte: the
    # error the template error wraps.
    assert_equal ["ArgumentError", "partial raised at order 50000", false, "json_stream.jetson"],
                 report.values_at("class", "message", "handled", "source")
    assert_equal response.body.bytesize, report["bytes_sent"]
    assert_equal 0, stats["busy"]
    log = File.read(server.log_path)
    assert_match(/JSON stream aborted after #{response.body.bytesize} bytes: ActionView::Template::Error: partial raised at order 50000/, log)
    assert_match(%r{_order\.json\.jbuilder:3}, log) # the backtrace names the partial's line
    # The connection is closed, and the server goes on serving.
    assert_equal 200, server.get("/stream/records?count=10").status
  end

  def test_a_client_that_disconnects_stops_the_query_loop
    total_batches = ROWS / 200
    read = server.get_and_disconnect("/stream/partial?batch_size=200", 512 * 1024)
    assert_operator read, :>=, 512 * 1024
    # Once the server's writes fail it stops; wait until the count stays put.
    counts = []
    stats = server.stats_until do |s|
      counts << s["batches"].size
      counts.size > 4 && counts.last(4).uniq.size == 1 && s["busy"].zero?
    end
    queried = stats["batches"].count { |b| b["table"] == "Order" }
    assert_operator queried, :<, total_batches / 3, "#{queried} of #{total_batches} batches queried after a disconnect"
    puts "\n  #{self.class::DATABASE_NAME}: #{queried} of #{total_batches} batches queried after a client read 512 KB and closed" if ENV["JETSON_STREAMING_VERBOSE"]
    assert_empty stats["reports"], "a client going away is not an application error"
    assert_match(/JSON stream stopped after \d+ bytes: the server's write raised/, File.read(server.log_path))
    assert_equal 0, stats["busy"]
  end

  def test_a_database_error_before_the_first_byte_is_an_ordinary_error_response
    response = server.get("/stream/missing_column")
    assert_nil response.error
    assert_equal 500, response.status
    assert_equal({ "status" => 500, "error" => "Internal Server Error" }, JSON.parse(response.body))
    stats = server.stats_until { |s| s["reports"].any? && s["busy"].zero? }
    assert_equal ["ActiveRecord::StatementInvalid", "application.action_dispatch"],
                 only(stats["reports"]).values_at("class", "source")
    assert_equal 0, stats["busy"]
  end

  # The table goes away between two batches (dropped by this process once
  # the first chunk is here): the next batch query raises in the database.
  def test_a_database_error_after_the_first_byte_cuts_the_body
    database = self.class.database
    Kit::StreamingApp::Database.fill(database, "fault_orders", FAULT_ROWS)
    dropped = false
    response = server.get("/stream/records?table=fault_orders&batch_size=500", on_chunk: lambda do |_chunk, _chunks|
      next if dropped

      Kit::StreamingApp::Database.drop(database, "fault_orders")
      dropped = true
    end)
    assert dropped
    assert_equal 200, response.status
    refute_nil response.error, "the body ended as a complete chunked response"
    assert_raises(JSON::ParserError) { JSON.parse(response.body) }
    stats = server.stats_until { |s| s["reports"].any? && s["busy"].zero? }
    queried = stats["batches"].count { |b| b["table"] == "FaultOrder" }
    assert_operator queried, :<, FAULT_ROWS / 500, "the stream ended before the table was dropped"
    report = only(stats["reports"])
    assert_equal ["ActiveRecord::StatementInvalid", false, "json_stream.jetson"],
                 report.values_at("class", "handled", "source")
    assert_equal response.body.bytesize, report["bytes_sent"]
    assert_match(/JSON stream aborted after \d+ bytes: ActiveRecord::StatementInvalid/, File.read(server.log_path))
    assert_equal 0, stats["busy"]
  ensure
    Kit::StreamingApp::Database.drop(database, "fault_orders") if database
  end
end

class StreamingSQLiteTest < Minitest::Test
  include StreamingBehaviour
  DATABASE_NAME = "SQLite"

  def self.skip_reason = nil

  def self.make_database(dir) = Kit::StreamingApp::Database.sqlite(dir)
end

class StreamingPostgreSQLTest < Minitest::Test
  include StreamingBehaviour
  DATABASE_NAME = "PostgreSQL"

  def self.skip_reason = Kit::DatabaseServers.reason(:postgresql)

  def self.make_database(_dir) = Kit::StreamingApp::Database.postgresql
end
