# frozen_string_literal: true

require_relative "../support/jbuilder_diff"

# Jbuilder's errors (classes, messages, ancestry) and templates that rescue an
# error raised inside a block and go on: the builder's scope, key format and
# options must be those of the level the template continues at.
class JbuilderErrorsTest < Minitest::Test
  extend JbuilderDiff::DSL
  include JbuilderCases

  ann = Person.new("Ann", 41, nil)

  # ---- the error classes ------------------------------------------------------------
  same "error classes and ancestry", code: <<~RUBY
    [Jbuilder::NullError, Jbuilder::ArrayError, Jbuilder::MergeError].map do |k|
      [k.name, k.superclass.name, k < NoMethodError, k < StandardError, k < NameError]
    end.inspect
  RUBY
  same "NullError.build", code: "e = Jbuilder::NullError.build(:some_key)\n[e.class.name, e.message, e.is_a?(NoMethodError)].inspect"
  same "ArrayError.build", code: "e = Jbuilder::ArrayError.build('k')\n[e.class.name, e.message].inspect"
  same "MergeError.build", code: "e = Jbuilder::MergeError.build({ 'a' => 1 }, [:x, nil])\n[e.class.name, e.message].inspect"
  # The message's first line: error_highlight appends the line that raised,
  # which is Jbuilder's own source there.
  same "NullError rescued as NoMethodError", code: "begin\n  Jbuilder.new { |json| json.nil!\n json.a 1 }\n  'not raised'\nrescue NoMethodError => e\n  e.class.name + ': ' + e.message.lines.first.chomp\nend"
  same "ArrayError from a block is a TypeError", "json.array! [1]\nbegin\n  json.b { json.c 1 }\nrescue TypeError\n  json.array! [2]\nend"
  same "NullError's name and receiver", code: "begin\n  Jbuilder.new { |j| j.nil!\n j.k 1 }\nrescue NoMethodError => e\n  [e.name, (e.receiver rescue 'no receiver: ' + $!.class.name)].inspect\nend"
  same "NullError message with a Symbol key", "json.nil!\njson.set! :sym_key, 1"
  same "NullError message with a String key", "json.nil!\njson.set! 'str key', 1"
  same "NullError message with an Integer key", "json.nil!\njson.set! 5, 1"
  same "NullError message with a quote in the key", "json.nil!\njson.set! 'a\"b', 1"
  same "ArrayError message", "json.array! [1]\njson.set! :k, 1"
  same "ArrayError from extract!", "json.array! [1]\njson.extract! person, :name", data: { person: ann }
    same "ArrayError from a collection block", "json.array! [1]\njson.b([1]) { |x| json.c x }"
  same "ArrayError message with an empty block", "json.array! [1]\njson.b {}"
  same "MergeError message with a Hash and an Array", "json.a({ 'x' => [1, nil] })\njson.array! [{ y: :z }]"
  same "MergeError message with objects", "json.t time\njson.array! [person]", data: { time: Time.utc(2020, 1, 2), person: ann }
  same "MergeError message from merge! of an Integer", "json.a 1\njson.merge!(5)"
  same "MergeError message from a block merging into an Array", "json.a [1]\njson.a { json.b 2 }"
  same "MergeError message with a Symbol-keyed merge", "json.merge!(a: 1)\njson.merge!([2])"
  same "errors raised by the data", "json.a person.nope", data: { person: ann }
  same "error raised in a template", "json.a 1\nraise ArgumentError, 'template failed'"
  same "error raised inside a nested block", "json.a { json.b { raise 'deep' } }"
  same "error raised by a key formatter in a block", "json.a do\n  json.key_format! ->(k) { raise 'no ' + k }\n  json.b 1\nend"
  same "SystemStackError from a cycle", "h = {}\nh['self'] = h\njson.h h"
  same "cycle through an Array", "a = [1]\na << a\njson.a a"
  same "throw through a block", "r = catch(:out) do\n  json.a { json.b 1\n throw :out, 'thrown' }\nend\njson.r r\njson.c 2"

  # ---- rescue and continue: the scope is restored -----------------------------------
  same "rescue after an error in a block", "json.a 1\nbegin\n  json.b { json.x 1\n raise 'boom' }\nrescue => e\n  json.err e.message\nend\njson.c 3"
  same "rescue after an error in a nested block", "json.a do\n  json.x 1\n  begin\n    json.b { json.y 2\n json.c { raise 'boom' } }\n  rescue\n    json.rescued true\n  end\n  json.z 3\nend\njson.after 4"
  same "rescue after an error in a collection block", "begin\n  json.l([1, 2, 3]) { |x| raise 'at ' + x.to_s if x == 2\n json.x x }\nrescue => e\n  json.err e.message\nend\njson.next 1"
  same "rescue after an error in child!", "json.child! { json.a 1 }\nbegin\n  json.child! { json.b 2\n raise 'boom' }\nrescue\nend\njson.child! { json.c 3 }"
  same "rescue after an error in array! with a block", "begin\n  json.array!([1, 2]) { |x| raise 'boom' if x == 2\n json.x x }\nrescue\nend\njson.k 1"
  same "rescue after an error in a repeated block", "json.a { json.x 1 }\nbegin\n  json.a { json.y 2\n raise 'boom' }\nrescue\nend\njson.a { json.z 3 }"
  same "rescue after a NullError inside a block", "json.a do\n  json.nil!\n  begin\n    json.b 1\n  rescue Jbuilder::NullError => e\n    json.nil!\n  end\nend\njson.c 2"
  same "rescue after an ArrayError inside a block", "json.a do\n  json.array! [1]\n  begin\n    json.b 1\n  rescue Jbuilder::ArrayError\n  end\n  json.array! [2]\nend\njson.c 2"
  same "rescue after a MergeError at the top", "json.a 1\nbegin\n  json.array! [1]\nrescue Jbuilder::MergeError => e\n  json.err e.message\nend"
  same "rescue after a KeyError from extract!", "begin\n  json.extract! row, :name, :missing\nrescue KeyError => e\n  json.err e.message\nend\njson.k 1", data: { row: { name: "x" } }
  same "rescue after an error in a block: key format restored", "json.key_format! :upcase\nbegin\n  json.a { json.key_format! camelize: :lower\n json.some_key 1\n raise 'boom' }\nrescue\nend\njson.other_key 2"
  same "rescue after an error in a block: deep_format_keys restored", "json.key_format! :upcase\nbegin\n  json.a { json.deep_format_keys!\n raise 'boom' }\nrescue\nend\njson.h({ k: 1 })"
  same "rescue after an error in a block: ignore_nil kept", "begin\n  json.a { json.ignore_nil!\n raise 'boom' }\nrescue\nend\njson.n nil\njson.m 1"
  same "rescue after an error in a collection element: earlier elements", "json.l([1, 2]) do |x|\n  begin\n    json.a x\n    raise 'boom' if x == 1\n    json.b x\n  rescue\n    json.rescued x\n  end\nend"
  same "error in a block after the block set keys", "begin\n  json.a { json.x 1\n json.y 2\n raise 'late' }\nrescue\nend", result: :attributes
  same "error in a nested builder", "begin\n  json.p Jbuilder.new { |j| j.a 1\n raise 'inner' }\nrescue => e\n  json.err e.message\nend"
  same "error in a deep_format_keys! value", "json.key_format! ->(k) { raise 'fmt ' + k if k == 'bad'\n k }\njson.deep_format_keys!\nbegin\n  json.h({ 'ok' => 1, 'bad' => 2 })\nrescue => e\n  json.err e.message\nend\njson.fine 1"
  same "break out of a collection block", "json.l([1, 2, 3]) { |x| json.x x\n break if x == 2 }\njson.after 1"
  same "break out of array! with a block", "json.array!([1, 2, 3]) { |x| break if x == 2\n json.x x }\njson.array! [9]"
end
