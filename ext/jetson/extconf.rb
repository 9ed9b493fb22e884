# frozen_string_literal: true

require "mkmf"
require "fileutils"
require "open3"

# JETSON_CC=clang (`rake compile:clang`): another C compiler than the one
# Ruby was built with. Ruby's flags were chosen for that one (gcc on Linux):
# clang warns about each option it does not know (-Wduplicated-cond,
# -Wsuggest-attribute=format, -fexcess-precision=...), which -Werror makes
# an error. Those it names are dropped; its own -Wall -Wextra stay.
if (cc = ENV["JETSON_CC"])
  # RbConfig::MAKEFILE_CONFIG writes the Makefile; RbConfig::CONFIG, the same
  # values expanded (gcc's name and Ruby's flags spelled out), runs mkmf's
  # checks.
  configs = [RbConfig::MAKEFILE_CONFIG, RbConfig::CONFIG]
  ruby_cc = RbConfig::CONFIG["CC"]
  configs.each do |config|
    config.each_key { |key| config[key] = config[key].sub(/\A#{Regexp.escape(ruby_cc)}(?=\s|\z)/, cc) if config[key].is_a?(String) }
    config["CC"] = cc
  end
  expanded = [$warnflags, $CFLAGS, $CPPFLAGS].compact.map { |flags| RbConfig.expand(flags.dup, RbConfig::CONFIG.dup) }
  _, diagnostics, = Open3.capture3(cc, "-fsyntax-only", "-x", "c", "-", *expanded.join(" ").split, stdin_data: "")
  unknown = diagnostics.scan(/(?:unknown warning option|optimization flag|argument unused during compilation:) '([^']+)'/)
                       .flatten.uniq
  unless unknown.empty?
    message "#{cc}: dropping Ruby's options it does not know: #{unknown.join(' ')}\n"
    pattern = /(?<=\A|\s)(?:#{unknown.map { |flag| Regexp.escape(flag) }.join('|')})(?=\s|\z)/
    [$warnflags, $CFLAGS, $CPPFLAGS].compact.each { |flags| flags.gsub!(pattern, "") }
    configs.each do |config|
      config.each_key { |key| config[key] = config[key].gsub(pattern, "") if config[key].is_a?(String) }
    end
  end
end

$CFLAGS << " -std=c99 -O3 -g -gdwarf-4 -Wall -Wextra -Wno-unused-parameter"
# Only Init_jetson is exported (JT_EXPORT). Hidden symbols also make calls
# between the C files direct: with -fPIC, a default-visibility function may be
# interposed, so its calls go through the PLT and are never inlined.
$CFLAGS << " -fvisibility=hidden"
# Every function on a 64-byte boundary: the small documents' hot loops then
# keep their place against the cache lines whatever another file's code
# grows by. The 128 KiB window in buffer.c moved every json function by 288
# bytes, and small mixed went from 1.18-1.21x the walk floor to 1.25-1.36x
# (three runs each, alternating processes); aligned, 1.19-1.21x (small
# nested array 0.93-0.97x, small hash 1.08-1.14x). 8 KB more code. A change
# within a hot function can still move its loops (516adf6).
$CFLAGS << " -falign-functions=64"
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
  # float-cast-overflow: a double converted to an integer type it does not
  # fit is undefined, and x86-64 and arm64 answer it differently (the
  # smallest integer against saturation); gcc's -fsanitize=undefined leaves
  # that check out.
  sanitizers = " -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all"
  $CFLAGS << sanitizers << " --param=asan-stack=0 -fno-sanitize-address-use-after-scope"
  $CFLAGS << " -fno-omit-frame-pointer -O1 -g"
  $LDFLAGS << sanitizers
end

# JETSON_ASSERTS=1: JT_ASSERT's checks compiled in (bytes/base.h), each a
# crash with its place when an invariant breaks; `rake compile:asan` sets it.
# Release builds leave them out. Jetson::BUILD_INFO[:asserts] says which.
$defs << "-DJT_ASSERTS" if ENV["JETSON_ASSERTS"] && ENV["JETSON_ASSERTS"] != "0"
# JETSON_DISABLE_SIMD=1: no SSE2, AVX2 or NEON code, only the portable
# word-at-a-time loops (bytes/simd.h), as on a CPU without vectors; CI tests
# that build too (`rake test:portable`). Jetson::BUILD_INFO[:simd] is "none".
$defs << "-DJT_DISABLE_SIMD" if ENV["JETSON_DISABLE_SIMD"] && ENV["JETSON_DISABLE_SIMD"] != "0"
# JETSON_UNSIGNED_CHAR=1: plain char unsigned, as arm64's C ABI has it; the
# portable build of `rake test:portable` uses both, arm64's case on x86-64.
$CFLAGS << " -funsigned-char" if ENV["JETSON_UNSIGNED_CHAR"] && ENV["JETSON_UNSIGNED_CHAR"] != "0"

# Only Ruby's public C API: a function the headers do not declare fails the
# build (gem install), not the app's boot with an undefined symbol.
$CFLAGS << " -Werror=implicit-function-declaration"

have_func("rb_ext_ractor_safe", "ruby.h")

# Header dependencies per object: the compiler writes, beside each object,
# the headers it read (-MMD: a json/call.d beside json/call.o, Ruby's own
# headers left out), and the Makefile includes those files (below), so a
# header edit rebuilds only the objects that include it, directly or not.
# -MP adds an empty rule per header, so that a header renamed or removed
# does not stop make before the objects that named it are compiled again.
# Added after the checks above, whose test programs need no such files.
# A compiler without the options builds every object on any header change.
depfiles = try_cflags("-MMD -MP")
$CFLAGS << " -MMD -MP" if depfiles

# numbers.c (Schubfach) and grisu2.c include tables of powers of ten
# computed here with exact Integer arithmetic; the build directory is on the
# include path.
require_relative "pow10_table"
Jetson::Pow10Table.write("jetson_pow10_table.h")
require_relative "grisu_powers_table"
Jetson::GrisuPowersTable.write("jetson_grisu_powers.h")

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

# mkmf knows no header dependencies; the compiler's files say them (see
# -MMD above). An object not compiled yet has no file and is compiled
# anyway; without the files (a compiler without -MMD), every object depends
# on every header, so that changing one rebuilds what may include it.
headers = Dir.glob(File.join($srcdir, "{,*/}*.h")).sort
# The generated tables are written again when their generator changes (a
# build directory outlives an edit of pow10_table.rb or grisu_powers_table.rb).
generated = { "jetson_pow10_table.h" => ["pow10_table.rb", "Jetson::Pow10Table"],
              "jetson_grisu_powers.h" => ["grisu_powers_table.rb", "Jetson::GrisuPowersTable"] }
# An object compiled before the files were written (a build directory from
# an older extconf.rb) would otherwise depend on no header at all: it is
# compiled again.
$objs.each { |obj| FileUtils.rm_f(obj) unless File.exist?(obj.sub(/\.#{$OBJEXT}\z/, ".d")) } if depfiles
File.open("Makefile", "a") do |makefile|
  if depfiles
    makefile.puts("", "CLEANFILES += $(OBJS:.#{$OBJEXT}=.d)", "-include $(OBJS:.#{$OBJEXT}=.d)")
  else
    makefile.puts("", "$(OBJS): #{(headers + generated.keys).join(' ')}")
  end
  generated.each do |header, (script, name)|
    makefile.puts("", "#{header}: $(srcdir)/#{script}",
                  "\t$(RUBY) -r$(srcdir)/#{script} -e '#{name}.write(\"#{header}\")'")
  end
end
