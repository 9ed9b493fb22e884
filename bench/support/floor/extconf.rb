# frozen_string_literal: true

# The floor of bench/generate.rb (floor.c), built by bench/support/floor.rb
# into tmp/bench-floor/RUBY_VERSION/; not part of the gem.

require "mkmf"

# -Wno-unused-parameter as for ext/jetson: Ruby's own headers have unused
# parameters (3.4's rb_gc_force_recycle), which -Wextra would report.
$CFLAGS << " -std=c99 -Wall -Wextra -Wno-unused-parameter"
# Ruby's public C API only: an undeclared function fails the build.
$CFLAGS << " -Werror=implicit-function-declaration"

create_makefile("jetson_bench_floor")
