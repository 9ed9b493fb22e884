# frozen_string_literal: true

require_relative "processes"
require "socket"
require "tmpdir"
require "fileutils"
require "etc"

module Kit
  # PostgreSQL and MariaDB servers of the tests' and benchmarks' own, for
  # ActiveRecord on the databases apps actually run (their adapters type
  # columns differently from sqlite3). Each server is started at most once per process, on a free local
  # port, in a temporary directory of its own, and is stopped and its directory
  # removed when the process exits: a test never depends on, or disturbs, a
  # system cluster or another run. Where a server cannot be run (not installed,
  # fails to initialise or to start), its tests skip and the reason is printed,
  # so a missing package shows up as a message instead of a failure.
  #
  #   DatabaseServers.postgresql  # => ActiveRecord config Hash, or raises Unavailable
  #   DatabaseServers.mariadb     # => likewise (adapter "mysql2"; use "trilogy" with the same Hash)
  #   DatabaseServers.available(:postgresql)  # => the config, or nil with the reason printed once
  #   DatabaseServers.reason(:postgresql)     # => why it is unavailable, or nil
  #   DatabaseServers.create_database(config, "name")  # => config of a database of its own there
  #
  # JETSON_PG_BIN and JETSON_MARIADB_BIN name the one directory to take the
  # binaries from, instead of searching (a nonexistent one shows the skip path).
  module DatabaseServers
    class Unavailable < StandardError; end

    DATABASE = "jetson_test"
    START_TIMEOUT = 30
    LOG_TAIL = 20
    # rake test:asan preloads gcc's ASan runtime into every child; the servers
    # are not what is under test, and initdb hangs with it preloaded.
    SERVER_ENV = { "LD_PRELOAD" => nil, "ASAN_OPTIONS" => nil, "UBSAN_OPTIONS" => nil }.freeze

    # One lock per server, so a thread waiting for MariaDB is not held up by
    # PostgreSQL's start, and two threads never start the same server twice.
    LOCKS = { postgresql: Mutex.new, mariadb: Mutex.new }.freeze
    @results = {}

    class << self
      def postgresql
        result(:postgresql)
      end

      def mariadb
        result(:mariadb)
      end

      def available(name)
        result(name.to_sym)
      rescue Unavailable => e
        LOCKS.fetch(name.to_sym).synchronize do
          entry = @results.fetch(name.to_sym)
          unless entry[:reported]
            entry[:reported] = true
            warn "database_servers: #{name} unavailable: #{e.message}; its tests are skipped"
          end
        end
        nil
      end

      def reason(name)
        result(name.to_sym)
        nil
      rescue Unavailable => e
        e.message
      end

      # A database of its own on the server of config (any process's: only
      # a client connects), made unless it is there: the config for it.
      def create_database(config, name)
        create = if config[:adapter] == "postgresql"
                   "CREATE DATABASE #{name}"
                 else
                   "CREATE DATABASE IF NOT EXISTS #{name} CHARACTER SET utf8mb4"
                 end
        with_client(config) { |query| query.call(create) }
        config.merge(database: name)
      end

      # The pool's connections may still be open: PostgreSQL is told to close them.
      def drop_database(config, name)
        force = config[:adapter] == "postgresql" ? " WITH (FORCE)" : ""
        with_client(config) { |query| query.call("DROP DATABASE IF EXISTS #{name}#{force}") }
      end

      # Yields a lambda running one SQL statement on the server of config
      # (its first value back); the connection is closed after the block.
      def with_client(config)
        if config[:adapter] == "postgresql"
          require "pg"
          conn = PG.connect(host: config[:host], port: config[:port], user: config[:username], dbname: "postgres")
          yield ->(sql) { conn.exec(sql).values.dig(0, 0) }
        else
          require "mysql2"
          conn = Mysql2::Client.new(host: config[:host], port: config[:port], username: config[:username])
          yield ->(sql) { conn.query(sql, as: :array)&.first&.first }
        end
      ensure
        conn&.close
      end

      private

      def result(name)
        lock = LOCKS.fetch(name) { raise ArgumentError, "unknown database server #{name.inspect}" }
        entry = lock.synchronize { @results[name] ||= attempt(name) }
        raise entry[:error] if entry[:error]

        entry[:config].dup
      end

      # Failures a machine can have (a missing binary or gem, a full disk, a
      # refused port) become the skip reason; anything else is a bug here and
      # propagates.
      def attempt(name)
        { config: send(:"start_#{name}") }
      rescue Unavailable => e
        { error: e }
      rescue SystemCallError, LoadError, IOError => e
        { error: Unavailable.new("#{e.class}: #{e.message}") }
      end

      # ---- PostgreSQL ------------------------------------------------------

      def start_postgresql
        bin = postgresql_bin
        as_user = postgresql_user
        runuser = as_user && runuser_path
        start_in("jetson-pg-", as_user ? "/tmp" : Dir.tmpdir) do |dir, stop_when_done|
          if as_user
            # initdb and postgres refuse root; the postgres user must own the
            # whole tree, and /tmp (not root's home) keeps its parents traversable.
            pw = Etc.getpwnam(as_user)
            File.chown(pw.uid, pw.gid, dir)
          end
          data = File.join(dir, "data")
          port = free_port
          prefix = as_user ? [runuser, "-u", as_user, "--"] : []

          init_log = File.join(dir, "initdb.log")
          # -N: the cluster is thrown away, so nothing is worth an fsync.
          unless run(prefix + [File.join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres",
                               "-E", "UTF8", "--locale=C", "-N"], dir, init_log)
            raise Unavailable, "initdb failed#{tail(init_log)}"
          end

          File.open(File.join(data, "postgresql.conf"), "a") do |f|
            f.puts "listen_addresses = '127.0.0.1'", "port = #{port}", "unix_socket_directories = '#{dir}'",
                   # Durability is pointless for a throwaway cluster and costs seconds per test run.
                   "fsync = off", "synchronous_commit = off", "full_page_writes = off"
          end

          server_log = File.join(dir, "server.log")
          ctl_log = File.join(dir, "pg_ctl.log")
          ctl = prefix + [File.join(bin, "pg_ctl"), "-D", data]
          # Registered before the start so a half-started server is stopped too.
          stop_when_done.call { stop_postgresql(ctl, dir) }
          unless run(ctl + ["-l", server_log, "-w", "-t", START_TIMEOUT.to_s, "start"], dir, ctl_log)
            raise Unavailable, "pg_ctl could not start the server on port #{port} within #{START_TIMEOUT} s" \
                               "#{tail(ctl_log)}#{tail(server_log)}"
          end

          create_postgresql_database(bin, port, dir)
          { adapter: "postgresql", host: "127.0.0.1", port: port, username: "postgres", database: DATABASE }
        end
      end

      # Debian installs each major version side by side and puts none of them on
      # PATH; an initdb on PATH is taken first as the one the user chose.
      def postgresql_bin
        pg_bin = ->(d) { File.executable?(File.join(d, "initdb")) && File.executable?(File.join(d, "pg_ctl")) }
        if (only = ENV["JETSON_PG_BIN"])
          return only if pg_bin.call(only)

          raise Unavailable, "JETSON_PG_BIN=#{only} has no initdb and pg_ctl"
        end
        candidates = []
        if (initdb = which("initdb"))
          candidates << File.dirname(File.realpath(initdb))
        end
        candidates += Dir["/usr/lib/postgresql/*/bin"].sort_by { |d| File.basename(File.dirname(d)).to_f }.reverse
        found = candidates.find(&pg_bin)
        found or raise Unavailable, "no initdb/pg_ctl on PATH or in /usr/lib/postgresql/*/bin " \
                                    "(apt-get install postgresql)"
      end

      def postgresql_user
        return nil unless Process.uid.zero?

        Etc.getpwnam("postgres")
        "postgres"
      rescue ArgumentError
        raise Unavailable, "running as root, which PostgreSQL refuses, and there is no postgres system user " \
                           "to run it as (Debian's postgresql package creates it)"
      end

      # Like mariadbd, runuser is in /usr/sbin, which PATH may lack.
      def runuser_path
        which("runuser") || ("/usr/sbin/runuser" if File.executable?("/usr/sbin/runuser")) or
          raise Unavailable, "running as root, which PostgreSQL refuses, and there is no runuser " \
                             "to run it as the postgres user (util-linux)"
      end

      def create_postgresql_database(bin, port, dir)
        log = File.join(dir, "createdb.log")
        createdb = File.join(bin, "createdb")
        return create_postgresql_database_with_pg(port) unless File.executable?(createdb)
        return if run([createdb, "-h", "127.0.0.1", "-p", port.to_s, "-U", "postgres", DATABASE], dir, log)

        raise Unavailable, "createdb #{DATABASE} failed#{tail(log)}"
      end

      # A bin directory of initdb and pg_ctl alone (JETSON_PG_BIN) may lack the client tools.
      def create_postgresql_database_with_pg(port)
        require "pg"
        begin
          conn = PG.connect(host: "127.0.0.1", port: port, user: "postgres", dbname: "postgres")
          conn.exec("CREATE DATABASE #{DATABASE}")
        rescue PG::Error => e
          raise Unavailable, "CREATE DATABASE #{DATABASE} failed: #{e.message.strip}"
        ensure
          conn&.close
        end
      end

      def stop_postgresql(ctl, dir)
        # immediate: the data is thrown away, so no shutdown checkpoint.
        return unless File.exist?(File.join(dir, "data", "postmaster.pid"))

        run(ctl + ["-m", "immediate", "-w", "stop"], dir, File::NULL)
      ensure
        FileUtils.rm_rf(dir)
      end

      # ---- MariaDB ---------------------------------------------------------

      def start_mariadb
        install_db, server = mariadb_binaries
        require "mysql2"
        start_in("jetson-mariadb-") do |dir, stop_when_done|
          user = Etc.getpwuid(Process.uid).name
          data = File.join(dir, "data")
          port = free_port

          install_log = File.join(dir, "install-db.log")
          unless run([install_db, "--no-defaults", "--datadir=#{data}", "--user=#{user}",
                      "--auth-root-authentication-method=normal", "--skip-test-db"], dir, install_log)
            raise Unavailable, "#{File.basename(install_db)} failed#{tail(install_log)}"
          end

          server_log = File.join(dir, "server.log")
          pid = Process.spawn(SERVER_ENV, server, "--no-defaults", "--datadir=#{data}",
                              "--port=#{port}", "--bind-address=127.0.0.1",
                              "--socket=#{File.join(dir, 'sock')}", "--pid-file=#{File.join(dir, 'mariadbd.pid')}",
                              "--tmpdir=#{dir}", "--user=#{user}", "--skip-log-bin",
                              # Durability is pointless for a throwaway server.
                              "--innodb-flush-log-at-trx-commit=0", "--innodb_buffer_pool_size=64M",
                              "--character-set-server=utf8mb4", "--collation-server=utf8mb4_unicode_ci",
                              "--default-time-zone=+00:00",
                              # Its own group: a ^C in the terminal reaches only this
                              # process, whose exit handler then stops the server.
                              chdir: dir, in: File::NULL, out: server_log, err: [:child, :out], pgroup: true)
          stop_when_done.call { stop_mariadb(pid, dir) }

          client = wait_for_mariadb(pid, port, server_log)
          client.query("CREATE DATABASE #{DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
          client.close
          { adapter: "mysql2", host: "127.0.0.1", port: port, username: "root", database: DATABASE }
        end
      end

      # Debian puts mariadbd in /usr/sbin, which a non-root PATH often lacks.
      def mariadb_binaries
        if (only = ENV["JETSON_MARIADB_BIN"])
          in_only = ->(names) { names.map { |b| File.join(only, b) }.find { |p| File.executable?(p) } }
          install_db = in_only.call(%w[mariadb-install-db mysql_install_db])
          server = in_only.call(%w[mariadbd mysqld])
          return [install_db, server] if install_db && server

          raise Unavailable, "JETSON_MARIADB_BIN=#{only} has no mariadb-install-db and mariadbd"
        end
        install_db = which("mariadb-install-db") || which("mysql_install_db")
        server = which("mariadbd") || which("mysqld") ||
                 %w[/usr/sbin/mariadbd /usr/sbin/mysqld].find { |p| File.executable?(p) }
        return [install_db, server] if install_db && server

        missing = [("mariadb-install-db" unless install_db), ("mariadbd" unless server)].compact.join(" and ")
        raise Unavailable, "no #{missing} on PATH or in /usr/sbin (apt-get install mariadb-server)"
      end

      def wait_for_mariadb(pid, port, server_log)
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + START_TIMEOUT
        loop do
          begin
            return Mysql2::Client.new(host: "127.0.0.1", port: port, username: "root", connect_timeout: 2)
          rescue Mysql2::Error
            nil
          end
          if Process.wait(pid, Process::WNOHANG)
            raise Unavailable, "mariadbd exited with #{$?.exitstatus || $?} before accepting connections" \
                               "#{tail(server_log)}"
          end
          if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
            raise Unavailable, "the server did not accept connections within #{START_TIMEOUT} s on port #{port}" \
                               "#{tail(server_log)}"
          end
          sleep 0.05
        end
      end

      def stop_mariadb(pid, dir)
        Process.kill("TERM", pid)
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + START_TIMEOUT
        until Process.wait(pid, Process::WNOHANG)
          if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
            Process.kill("KILL", pid)
            Process.wait(pid)
            break
          end
          sleep 0.05
        end
      rescue Errno::ESRCH, Errno::ECHILD
        nil # already gone (it died during start, or was reaped there)
      ensure
        FileUtils.rm_rf(dir)
      end

      # ---- shared ------------------------------------------------------------

      # Runs a server's start (the block) in a temporary directory of its
      # own. The block names how to stop what it spawned as soon as it has
      # (stop_when_done.call { ... }): that runs at exit, and at once when
      # the start does not get as far as returning the config. ensure, not
      # rescue: an interrupt (^C, a CI timeout) mid-start must not leave it
      # behind either.
      def start_in(prefix, parent = Dir.tmpdir)
        dir = Dir.mktmpdir(prefix, parent)
        stops = []
        config = yield(dir, lambda do |&stop|
          stops << stop
          stop_at_exit(&stop)
        end)
      ensure
        unless config
          stops.each(&:call)
          FileUtils.rm_rf(dir) if dir
        end
      end

      # A forked child inherits the at_exit handlers; only the process that
      # started a server may stop it, or the first child to exit would take it
      # away from its parent.
      def stop_at_exit(&stop)
        owner = Process.pid
        at_exit { stop.call if Process.pid == owner }
      end

      # Each tool in a process group of its own, so that if this process is
      # interrupted while waiting, the tool and what it spawned (initdb's
      # bootstrap backends, a postmaster half-started by pg_ctl) are killed
      # instead of going on writing into a directory being removed.
      def run(argv, dir, log)
        pid = Process.spawn(SERVER_ENV, *argv, chdir: dir, in: File::NULL, out: log, err: [:child, :out], pgroup: true)
        Process.wait(pid)
        pid = nil
        $?.success?
      ensure
        if pid
          begin
            Process.kill("KILL", -pid)
            Process.wait(pid)
          rescue SystemCallError
            nil
          end
        end
      end

      def free_port = Kit::Processes.free_port

      def which(name)
        ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).each do |d|
          path = File.join(d, name)
          return path if File.file?(path) && File.executable?(path)
        end
        nil
      end

      def tail(log)
        lines = File.readlines(log, chomp: true).last(LOG_TAIL)
        lines.empty? ? "" : "; last lines of #{File.basename(log)}:\n  #{lines.join("\n  ")}"
      rescue SystemCallError
        ""
      end
    end
  end
end
