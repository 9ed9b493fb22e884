# frozen_string_literal: true

module JetsonBench
  # The process's minor page faults so far (Linux: /proc/self/stat), or nil
  # where that file is missing. A minor fault is a page the kernel maps in
  # without reading a disk: for a generator, mostly fresh memory for its
  # output, which glibc returns to the kernel when the GC frees a run of
  # results and takes back on the next calls.
  module PageFaults
    STAT = "/proc/self/stat"

    module_function

    def minor
      # The fields after the command name, which is in parentheses and may
      # hold spaces: state is the first of them, minflt the eighth.
      Integer(File.read(STAT).rpartition(")").last.split[7])
    rescue SystemCallError, ArgumentError, TypeError
      nil
    end
  end
end
