# frozen_string_literal: true

require_relative "../support/jbuilder_diff"

# Construction, class-level defaults, key formats, deep_format_keys and
# ignore_nil, compared with real Jbuilder.
class JbuilderConfigTest < Minitest::Test
  extend JbuilderDiff::DSL
  include JbuilderCases

  ann = Person.new("Ann", 41, nil)
  nested = { first_name: "Ann", "last_name" => "Lee", home_address: { street_name: "Main", zip_codes: [{ zip_code: 1 }] } }

  # ---- constructor and encode -----------------------------------------------------
  same "Jbuilder.new without a block", code: "Jbuilder.new.target!"
  same "Jbuilder.new without a block, attributes", code: "Jbuilder.new.attributes!.inspect"
  same "Jbuilder.new with options and no block", code: "Jbuilder.new(ignore_nil: true).target!"
  same "Jbuilder.encode", code: "Jbuilder.encode { |json| json.a 1\n json.b [2] }"
  same "Jbuilder.encode without a block", code: "Jbuilder.encode"
  same "Jbuilder.encode with options", code: "Jbuilder.encode(ignore_nil: true, key_formatter: Jbuilder::KeyFormatter.new(:upcase)) { |json| json.a nil\n json.b 1 }"
  same "Jbuilder.encode returns a String", code: "s = Jbuilder.encode { |json| json.a 1 }\n[s.class.name, s.encoding.name, s.frozen?].inspect"
  same "target! encoding", code: "Jbuilder.new { |json| json.a 'é' }.target!.encoding.name"
  same "Jbuilder.new with an unknown option", code: "Jbuilder.new(bogus: 1).target!"
  same "Jbuilder.new with a positional argument", code: "Jbuilder.new({}).target!"
  same "constructor ignore_nil", "json.a nil\njson.b 1", args: "ignore_nil: true"
  same "constructor ignore_nil false", "json.a nil\njson.b 1", args: "ignore_nil: false"
  same "constructor key_formatter", "json.first_name 'a'", args: "key_formatter: Jbuilder::KeyFormatter.new(camelize: :lower)"
  same "constructor key_formatter nil", "json.first_name 'a'", args: "key_formatter: nil"
  same "constructor deep_format_keys", "json.h({ first_name: 1 })", args: "key_formatter: Jbuilder::KeyFormatter.new(:upcase), deep_format_keys: true"
  same "constructor deep_format_keys without a formatter", "json.h({ first_name: 1 })\njson.merge!(b: 2)", args: "deep_format_keys: true", result: :attributes

  # ---- class-level defaults -----------------------------------------------------------
  same "Jbuilder.key_format", "json.first_name 'a'\njson.last_name { json.given_name 'b' }", setup: "Jbuilder.key_format camelize: :lower"
  same "Jbuilder.key_format with a Proc", "json.first_name 'a'", setup: "Jbuilder.key_format ->(key) { key.upcase }"
  same "Jbuilder.key_format and an explicit formatter", "json.first_name 'a'", setup: "Jbuilder.key_format :upcase", args: "key_formatter: Jbuilder::KeyFormatter.new(:reverse)"
  same "Jbuilder.key_format overridden by nil", "json.first_name 'a'", setup: "Jbuilder.key_format :upcase", args: "key_formatter: nil"
  same "Jbuilder.ignore_nil", "json.a nil\njson.b 1", setup: "Jbuilder.ignore_nil"
  same "Jbuilder.ignore_nil true then false", "json.a nil\njson.b 1", setup: "Jbuilder.ignore_nil true\nJbuilder.ignore_nil false"
  same "Jbuilder.ignore_nil overridden by the constructor", "json.a nil", setup: "Jbuilder.ignore_nil", args: "ignore_nil: false"
  same "Jbuilder.deep_format_keys", "json.h({ first_name: { last_name: 1 } })", setup: "Jbuilder.key_format :upcase\nJbuilder.deep_format_keys"
  same "Jbuilder.deep_format_keys overridden", "json.h({ first_name: 1 })", setup: "Jbuilder.key_format :upcase\nJbuilder.deep_format_keys", args: "deep_format_keys: false"
  same "class defaults read when the builder is made", code: "a = Jbuilder.new\nJbuilder.key_format :upcase\nb = Jbuilder.new\na.first 1\nb.first 1\na.target! + b.target!"
  same "class defaults seen by builders inside a template", "json.inner Jbuilder.new { |j| j.x_y nil\n j.z 1 }", setup: "Jbuilder.key_format camelize: :lower\nJbuilder.ignore_nil"
  same "Jbuilder.key_format without arguments", "json.first_name 1", setup: "Jbuilder.key_format"

  # ---- key_format! --------------------------------------------------------------------
  same "key_format! with a Symbol", "json.key_format! :upcase\njson.author do\n  json.name 'David'\nend"
  same "key_format! with a Proc", "json.key_format! ->(key) { '_' + key }\njson.first_name 'a'"
  same "key_format! with a lambda taking the key", "json.key_format! ->(key) { key.length.to_s }\njson.abc 1\njson.de 2"
  same "key_format! camelize: :lower", "json.key_format! camelize: :lower\njson.first_name 'a'\njson.set! 'last_name', 'b'\njson.set! :middle_name, 'c'"
  same "key_format! camelize: :upper", "json.key_format! camelize: :upper\njson.first_name 'a'"
  same "key_format! :camelize", "json.key_format! :camelize\njson.first_name 'a'"
  same "key_format! several positional formats in order", "json.key_format! :upcase, ->(k) { k + '!' }, :reverse\njson.ab 1"
  same "key_format! positional before keyword", "json.key_format! ->(k) { k + '_x' }, camelize: :lower\njson.first_name 1"
  same "key_format! several keyword formats", "json.key_format! camelize: :lower, center: [12, '*']\njson.first_name 1"
  same "key_format! keyword with a list of arguments", "json.key_format! tr: ['_', '-']\njson.first_name 1"
  same "key_format! keyword with no arguments", "json.key_format! upcase: []\njson.first_name 1"
  same "key_format! with a Proc keyword", "json.key_format!(->(k, suffix) { k + suffix } => '_s')\njson.first_name 1"
  same "key_format! without formats", "json.key_format!\njson.first_name 1"
  same "key_format! with a format that returns a Symbol", "json.key_format! :to_sym\njson.first_name 1", result: :attributes
  same "key_format! with a format that returns a Symbol, JSON", "json.key_format! :to_sym\njson.first_name 1"
  same "key_format! with a format that returns an Integer", "json.key_format! :length\njson.abc 1\njson.de 2"
  same "key_format! with a format that returns nil", "json.key_format! ->(k) { nil }\njson.abc 1\njson.de 2"
  same "key_format! with an unknown method", "json.key_format! :no_such_method\njson.abc 1"
  same "key_format! that raises", "json.key_format! ->(k) { raise ArgumentError, 'bad key ' + k }\njson.abc 1"
  same "key_format! applies to set! String keys", "json.key_format! :upcase\njson.set! 'abc', 1"
  same "key_format! applies to extract!", "json.key_format! :upcase\njson.extract! person, :name, :age", data: { person: ann }
  same "key_format! applies to extract! from a Hash", "json.key_format! :upcase\njson.extract! row, :name", data: { row: { name: "x" } }
  same "key_format! applies to set! with attributes", "json.key_format! :upcase\njson.author person, :name", data: { person: ann }
  same "key_format! does not apply to values", "json.key_format! :upcase\njson.h({ inner_key: 1 })\njson.l [{ 'k' => 2 }]"
  same "key_format! does not apply to merge!", "json.key_format! :upcase\njson.merge!(first_name: 1)"
  same "key_format! does not apply to array!", "json.key_format! :upcase\njson.array! [{ 'a' => 1 }]"
  same "key_format! does not apply to a nested builder's keys", "json.key_format! :upcase\njson.p Jbuilder.new { |j| j.abc 1 }"
  same "key_format! changed between keys", "json.first_name 1\njson.key_format! :upcase\njson.last_name 2\njson.key_format! camelize: :lower\njson.middle_name 3"
  same "key_format! repeated key under two formats", "json.abc 1\njson.key_format! :upcase\njson.abc 2\njson.key_format!\njson.abc 3"
  same "key_format! is inherited by blocks", "json.key_format! :upcase\njson.a { json.b 1 }"
  same "key_format! inside a block is restored after it", "json.a do\n  json.key_format! :upcase\n  json.inner 1\nend\njson.outer 2"
  same "key_format! inside a collection block is restored per element", "json.l([1, 2]) do |x|\n  json.before x\n  json.key_format! :upcase\n  json.after x\nend\njson.outer 1"
  same "key_format! inside child! is restored", "json.child! { json.key_format! :upcase\n json.a 1 }\njson.child! { json.b 2 }"
  same "key_format! inside a block that raises is restored", "begin\n  json.a { json.key_format! :upcase\n json.x 1\n raise 'boom' }\nrescue RuntimeError\nend\njson.outer 1"
  same "key_format! and the NullError key", "json.key_format! :upcase\njson.nil!\njson.abc 1"
  same "key_format! and the key of a block after nil", "json.key_format! :upcase\njson.abc nil\njson.abc { json.x 1 }"
  same "key_format! and a block merged under the formatted key", "json.abc { json.x 1 }\njson.key_format! :upcase\njson.abc { json.y 2 }"
  same "key_format! results are cached per formatter", "n = 0\njson.key_format! ->(k) { n += 1\n k + n.to_s }\njson.a 1\njson.a 2\njson.set! 'a', 3\njson.b { json.a 4 }"
  same "key_format! String and Symbol keys cached apart", "n = 0\njson.key_format! ->(k) { n += 1\n k + n.to_s }\njson.set! :a, 1\njson.set! 'a', 2\njson.set! :a, 3"
  same "a new key_format! starts a new cache", "n = 0\nf = ->(k) { n += 1\n k + n.to_s }\njson.key_format! f\njson.a 1\njson.key_format! f\njson.a 2"
  same "Jbuilder.key_format cache shared by builders", code: "n = 0\nJbuilder.key_format ->(k) { n += 1\n k + n.to_s }\na = Jbuilder.new { |j| j.x 1 }\nb = Jbuilder.new { |j| j.x 2\n j.y 3 }\na.target! + b.target!"
  same "KeyFormatter#format", code: "f = Jbuilder::KeyFormatter.new(:upcase, camelize: :lower)\n[f.format(:ab_cd), f.format('ef_gh'), f.format(1)].inspect"
  same "KeyFormatter with no formats", code: "f = Jbuilder::KeyFormatter.new\n[f.format(:a), f.format('b'), f.format(nil), f.format(2)].inspect"
  same "key_format! with Symbol and camelize on odd keys", "json.key_format! camelize: :lower\njson.set! '', 1\njson.set! '_x_y', 2\njson.set! 'ÄB_cd', 3\njson.set! 'a__b', 4"

  # ---- deep_format_keys! ---------------------------------------------------------------
  same "deep_format_keys! on a Hash value", "json.key_format! camelize: :lower\njson.deep_format_keys!\njson.settings(h)", data: { h: nested }
  same "deep_format_keys! on an Array value", "json.key_format! :upcase\njson.deep_format_keys!\njson.list [{ a: 1 }, [{ 'b' => 2 }], 3]"
  same "deep_format_keys! on merge!", "json.key_format! :upcase\njson.deep_format_keys!\njson.merge!(h)", data: { h: nested }
  same "deep_format_keys! on merge! of an Array", "json.key_format! :upcase\njson.deep_format_keys!\njson.merge!([{ a: 1 }])"
  same "deep_format_keys! on array!", "json.key_format! :upcase\njson.deep_format_keys!\njson.array! [{ a: { b: 1 } }]"
  same "deep_format_keys! on extract!", "json.key_format! :upcase\njson.deep_format_keys!\njson.extract! row, :name_info", data: { row: { name_info: { first_name: "a" } } }
  same "deep_format_keys! on a nested builder", "json.key_format! :upcase\njson.deep_format_keys!\njson.p Jbuilder.new { |j| j.merge!(abc: { de: 1 }) }"
  same "deep_format_keys! without a key format", "json.deep_format_keys!\njson.h({ a: 1 })", result: :attributes
  same "deep_format_keys! false", "json.key_format! :upcase\njson.deep_format_keys!\njson.deep_format_keys! false\njson.h({ a: 1 })"
  same "deep_format_keys! with a Struct value", "json.key_format! :upcase\njson.deep_format_keys!\njson.p person", data: { person: ann }
  same "deep_format_keys! with a HashWithIndifferentAccess", "json.key_format! :upcase\njson.deep_format_keys!\njson.p h", data: { h: { "a_b" => { "c_d" => 1 } }.with_indifferent_access }
  same "deep_format_keys! with colliding formatted keys", "json.key_format! :downcase\njson.deep_format_keys!\njson.h({ 'A' => 1, 'a' => 2 })"
  same "deep_format_keys! inside a block is restored", "json.key_format! :upcase\njson.a do\n  json.deep_format_keys!\n  json.h({ x: 1 })\nend\njson.h({ y: 2 })"
  same "deep_format_keys! inside a collection block is restored per element", "json.key_format! :upcase\njson.l([1, 2]) do |x|\n  json.h({ k: x })\n  json.deep_format_keys!\nend\njson.h({ y: 2 })"
  same "deep_format_keys! and Symbol values", "json.key_format! :upcase\njson.deep_format_keys!\njson.h({ a: :b })"

  # ---- ignore_nil! -----------------------------------------------------------------------
  same "ignore_nil!", "json.ignore_nil!\njson.a nil\njson.b 1"
  same "ignore_nil! false", "json.ignore_nil! false\njson.a nil"
  same "ignore_nil! keeps nils in arrays and Hashes", "json.ignore_nil!\njson.l [nil, 1]\njson.h({ a: nil })\njson.merge!(m: nil)\njson.array!([nil]) rescue json.err 1"
  same "ignore_nil! keeps nils in array!", "json.ignore_nil!\njson.array! [nil, 1]"
  same "ignore_nil! drops nil from extract!", "json.ignore_nil!\njson.extract! person, :name, :email", data: { person: ann }
  same "ignore_nil! drops nil attributes from set! with attributes", "json.ignore_nil!\njson.p person, :name, :email", data: { person: ann }
  same "ignore_nil! and a block that sets nil!", "json.ignore_nil!\njson.a { json.nil! }\njson.b 1"
  same "ignore_nil! and a nil builder value", "json.ignore_nil!\njson.a Jbuilder.new { |j| j.nil! }\njson.b 1"
  same "ignore_nil! and a repeated key set to nil", "json.a 1\njson.ignore_nil!\njson.a nil"
  same "ignore_nil! is not restored after a block", "json.a do\n  json.ignore_nil!\n  json.x nil\nend\njson.b nil"
  same "ignore_nil! false inside a block stays false", "json.ignore_nil!\njson.a { json.ignore_nil! false }\njson.b nil"
  same "ignore_nil! set in a collection block carries over", "json.l([1, 2]) do |x|\n  json.v nil\n  json.ignore_nil!\nend\njson.after nil"
  same "ignore_nil! set in child! carries over", "json.c do\n  json.child! { json.ignore_nil! }\n  json.child! { json.v nil\n json.w 1 }\nend"
  same "ignore_nil! with false and empty values", "json.ignore_nil!\njson.f false\njson.e ''\njson.l []\njson.h({})"
  same "ignore_nil! then nil!", "json.ignore_nil!\njson.nil!"
  same "ignore_nil! and nil collection", "json.ignore_nil!\njson.c(nil) { |x| json.x x }"
  same "ignore_nil! with a value argument nil", "json.ignore_nil! nil\njson.a nil"
  same "ignore_nil! with a truthy value", "json.ignore_nil! 'yes'\njson.a nil"
  same "ignore_nil! with a set! key then nil, attributes", "json.ignore_nil!\njson.a 1\njson.a nil", result: :attributes
end
