# frozen_string_literal: true

# Common prelude of the bench scripts: gems, the Jetson library, helpers.
# Run the scripts through `bundle exec` from the repository root.

require_relative "bundle"
require "json"
begin
  require "oj"
rescue LoadError
  warn "bench: oj is not installed; Oj contenders are skipped"
end

# The real Jetson (lib/ is on the load path: bundle.rb). A stand-in loaded
# with `-r` before this file (defining Jetson.generate and
# Jetson::BENCH_STAND_IN) is kept as is.
unless defined?(Jetson) && Jetson.respond_to?(:generate)
  begin
    require "jetson"
  rescue LoadError => e
    abort "bench: cannot load Jetson (#{e.message}).\n" \
          "Build it first: bundle exec rake compile"
  end
end

require_relative "options"
require_relative "documents"
require_relative "table"
require_relative "stats"
require_relative "allocations"
require_relative "runner"
require_relative "report"
