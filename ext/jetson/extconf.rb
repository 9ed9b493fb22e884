# frozen_string_literal: true

require "mkmf"
require "fileutils"

$CFLAGS << " -std=c99 -O3 -g -gdwarf-4 -Wall -Wextra -Wno-unused-parameter"
# Only Init_jetson is exported (JT_EXPORT). Hidden symbols also make calls
# between the C files direct: with -fPIC, a default-visibility function may be
# interposed, so its calls go through the PLT and are never inlined.
$CFLAGS << " -fvisibility=hidden"
$CFLAGS << " -fno-omit-frame-pointer -g" if ENV["JETSON_DEBUG"]
# CI compiles with warnings as errors on every Ruby of its matrix (.ci/run):
# 0 warnings is the bar there; a user's newer compiler warning is not a
# reason to fail their gem install.
$CFLAGS << " -Werror" if ENV["JETSON_WERROR"]
# `rake compile:asan`: AddressSanitizer and UndefinedBehaviorSanitizer, every
# report fatal so that a test run cannot pass over one. -O1 keeps the stacks
# readable (the later -O wins). Heap and global accesses are checked, stack
# frames are not: Ruby raises with __builtin_longjmp, which ASan cannot see,
# so the redzones of the C frames a raise skips would stay poisoned and the
# next function to use that stack memory would be reported.
if ENV["JETSON_SANITIZE"]
  sanitizers = " -fsanitize=address,undefined -fno-sanitize-recover=all"
  $CFLAGS << sanitizers << " --param=asan-stack=0 -fno-sanitize-address-use-after-scope"
  $CFLAGS << " -fno-omit-frame-pointer -O1 -g"
  $LDFLAGS << sanitizers
end

# Only Ruby's public C API: a function the headers do not declare fails the
# build (gem install), not the app's boot with an undefined symbol.
$CFLAGS << " -Werror=implicit-function-declaration"

have_func("rb_ext_ractor_safe", "ruby.h")

# numbers.c includes a power-of-ten table computed here with exact Integer
# arithmetic; the build directory is on the include path.
require_relative "pow10_table"
Jetson::Pow10Table.write("jetson_pow10_table.h")

# The sources sit in one folder per layer (bytes, json, rails, builder; see
# docs/architecture.md), jetson.c on top; every include names its folder
# ("bytes/buffer.h"), from the source root on the include path. Objects
# keep the folders in the build directory.
layers = Dir.glob(File.join($srcdir, "*/")).map { |dir| File.basename(dir) }.sort
$srcs = (["jetson.c"] + layers.flat_map { |layer| Dir.glob(File.join($srcdir, layer, "*.c")).sort })
        .map { |path| path.delete_prefix("#{$srcdir}/") }
$objs = $srcs.map { |src| src.sub(/\.c\z/, ".#{$OBJEXT}") }
layers.each { |layer| FileUtils.mkdir_p(layer) }
$INCFLAGS << " -I$(srcdir)"

create_makefile("jetson/jetson")

# mkmf knows no header dependencies: every object depends on every header,
# so that changing one rebuilds what may include it.
headers = Dir.glob(File.join($srcdir, "{,*/}*.h")).sort
File.open("Makefile", "a") { |makefile| makefile.puts("", "$(OBJS): #{headers.join(' ')}") }
