# frozen_string_literal: true

require "stringio"
require "json"
require_relative "random_graph"

# Differential comparison of Jetson against the json gem.
#
# For every document (a RandomGraph spec + a random option set) the same call
# is made through both libraries and the outcomes are compared: the returned
# bytes (and encoding/frozenness), or the exception class + message (+
# invalid_object for generator errors), plus any warnings emitted.
#
# Outputs are compared byte for byte, Floats included. The normalizations
# (each one keeps the comparison exact otherwise):
# - exception classes JSON::X map to Jetson::X, except for a JSON:: exception
#   raised by json gem code running inside a user callback (a to_json that
#   calls the json gem with the JSON::State it was handed): that is user
#   code's exception and must be the same class on both sides;
# - "JSON::State"/"JSON::Ext::Generator::State"/"JSON::Fragment"/"JSON::Coder" in messages
#   read as their Jetson names; object addresses (0x...) are masked, in
#   messages and in output text produced by default #to_s/#inspect;
# - error_highlight's source snippet is dropped from NameError messages;
# - warnings are compared by count (location prefixes dropped); differing
#   texts are collected as notes, not failures.
#
# Documents never combine a cycle with disabled nesting checks (Ruby 3.1 can
# abort on a stack overflow inside a Ruby callback), nor strict/as_json
# settings under which the json gem itself reads a non-String as a String
# (see RandomGraph::NON_STRING_AS_JSON).
#
# The parts, in load order:
#   warning_capture.rb     capturing_warnings, with_warnings_enabled
#   call_entries.rb        the sides, the entry points, outcomes
#   outcome_comparison.rb  the normalizations and compare_outcomes
#   input_graphs.rb        spec_of, graph_fingerprint
#   document_runner.rb     Stats, Runner (documents, options, calls)
#   mismatch_shrinking.rb  Runner#shrink
#   mismatch_report.rb     Runner.report and the reproducers
require_relative "differential/warning_capture"
require_relative "differential/call_entries"
require_relative "differential/outcome_comparison"
require_relative "differential/input_graphs"
require_relative "differential/document_runner"
require_relative "differential/mismatch_shrinking"
require_relative "differential/mismatch_report"
