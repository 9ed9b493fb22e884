# frozen_string_literal: true

require "mkmf"

$CFLAGS << " -std=c99 -O3 -g -gdwarf-4 -Wall -Wextra -Wno-unused-parameter"
$CFLAGS << " -fno-omit-frame-pointer -g" if ENV["JETSON_DEBUG"]
if ENV["JETSON_ASAN"]
  $CFLAGS << " -fsanitize=address -fno-omit-frame-pointer -O1 -g"
  $LDFLAGS << " -fsanitize=address"
end

have_func("rb_ext_ractor_safe", "ruby.h")

create_makefile("jetson/jetson")
