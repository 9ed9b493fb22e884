# frozen_string_literal: true

require "mkmf"

$CFLAGS << " -std=c99 -O3 -g -gdwarf-4 -Wall -Wextra -Wno-unused-parameter"
# Only Init_jetson is exported (JT_EXPORT). Hidden symbols also make calls
# between the C files direct: with -fPIC, a default-visibility function may be
# interposed, so its calls go through the PLT and are never inlined.
$CFLAGS << " -fvisibility=hidden"
$CFLAGS << " -fno-omit-frame-pointer -g" if ENV["JETSON_DEBUG"]
if ENV["JETSON_ASAN"]
  $CFLAGS << " -fsanitize=address -fno-omit-frame-pointer -O1 -g"
  $LDFLAGS << " -fsanitize=address"
end

have_func("rb_ext_ractor_safe", "ruby.h")
# Declared only in Ruby's internal headers; see gen_pairs_unguarded.
have_func("rb_hash_stlike_foreach")

# numbers.c includes a power-of-ten table computed here with exact Integer
# arithmetic; the build directory is on the include path.
require_relative "pow10_table"
Jetson::Pow10Table.write("jetson_pow10_table.h")

create_makefile("jetson/jetson")
