# frozen_string_literal: true

require "uri"
require_relative "../../kit/database_servers"

module BenchViews
  # The database of bench/views.rb's worlds: sqlite3 :memory: (the default)
  # or, with --database=postgresql|mysql2|trilogy, a server of the kit's
  # own (kit/database_servers.rb: started on a free local port in a
  # temporary directory, stopped when this process exits), as apps run in
  # production. The worlds find it through JETSON_VIEWS_DATABASE_URL and
  # each world process makes a database of its own there.
  module Database
    NAMES = %w[sqlite3 postgresql mysql2 trilogy].freeze
    ENV_NAME = "JETSON_VIEWS_DATABASE_URL"

    module_function

    # The --database= option of argv (default sqlite3), and argv without it.
    def option(argv)
      given = argv.find { _1.start_with?("--database=") }
      name = given ? given.split("=", 2).last : "sqlite3"
      abort "--database: one of #{NAMES.join(', ')}" unless NAMES.include?(name)

      [name, argv - [given]]
    end

    # In the parent: starts the server (unless sqlite3) and sets ENV_NAME to
    # it for the world processes. Returns what the results say of the
    # database.
    def prepare(name)
      ENV.delete(ENV_NAME)
      return "sqlite3 :memory:" if name == "sqlite3"

      server = name == "postgresql" ? :postgresql : :mariadb
      config = Kit::DatabaseServers.available(server) ||
               abort("--database=#{name}: #{Kit::DatabaseServers.reason(server)}")
      ENV[ENV_NAME] = URI::Generic.build(scheme: name, userinfo: config[:username], host: config[:host],
                                         port: config[:port], path: "/#{config[:database]}").to_s
      version = Kit::DatabaseServers.with_client(config) do |query|
        query.call(server == :postgresql ? "SHOW server_version" : "SELECT VERSION()")
      end
      "#{server == :postgresql ? 'PostgreSQL' : 'MariaDB'} #{version} (a server of this run on 127.0.0.1, " \
        "a database per world process)"
    end

    # In a world: the database URL for Rails (DATABASE_URL). On a server, a
    # database of this process's own, made now and dropped when it exits
    # (a world may run as several processes: bench/views/server.rb's puma
    # servers).
    def url(world)
      base = ENV.fetch(ENV_NAME, "")
      return "sqlite3::memory:" if base.empty?

      uri = URI(base)
      server = { adapter: uri.scheme, host: uri.host, port: uri.port, username: uri.user }
      name = "bench_views_#{world}_#{Process.pid}"
      Kit::DatabaseServers.create_database(server, name)
      owner = Process.pid
      at_exit { Kit::DatabaseServers.drop_database(server, name) if Process.pid == owner }
      uri.path = "/#{name}"
      uri.query = "encoding=utf8mb4" unless uri.scheme == "postgresql"
      uri.to_s
    end
  end
end
