# frozen_string_literal: true

# The start of a child Ruby comparing records under Oj (support/oj_child.rb):
# the record matrix on the parent's databases, whose rows the parent wrote.
require "bundler/setup"
require "oj"
require "jetson/jbuilder"
require "support/record_matrix"
require "support/oj_child"
RecordMatrix.use_databases(Marshal.load([ENV.fetch(OjChild::DATABASES)].pack("H*")))
