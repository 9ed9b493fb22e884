# frozen_string_literal: true

require "rbconfig"

# What the Oj tests share. Oj.optimize_rails replaces ActiveSupport's encoder
# and the json gem's methods for the whole process and for good, so each of
# them compares Jetson with Oj in a child Ruby, which starts with one of the
# files below (the test folder is on its load path):
#
#   require "support/oj_child/rails"    the bundle, json, Oj and ActiveSupport's
#                                       JSON, then Oj.optimize_rails, as an app's
#                                       initializer calls it; the child then
#                                       requires Jetson's entry point
#   require "support/oj_child/records"  the bundle, Oj, jetson/jbuilder and the
#                                       record matrix on the parent's databases
#                                       (OjChild#records_child passes them)
#
# A test class that includes OjChild is skipped where the bundle has no oj.
module OjChild
  ROOT = File.expand_path("../..", __dir__)
  # The environment variable the record matrix's databases reach a child in.
  DATABASES = "JETSON_OJ_CHILD_DATABASES"

  def setup
    skip "oj is not installed" unless Gem.loaded_specs["oj"]
    super
  end

  # The standard output of `script` (which requires support/oj_child/records)
  # run with args, on this process's record databases.
  def records_child(script, *args)
    databases = Marshal.dump(RecordMatrix.databases).unpack1("H*")
    output = IO.popen({ DATABASES => databases },
                      [RbConfig.ruby, "-I", File.join(ROOT, "lib"), "-I", File.join(ROOT, "test"), "-e", script, *args],
                      &:read)
    assert $?.success?, "the child failed (#{args.join(' ')})"
    output
  end
end
