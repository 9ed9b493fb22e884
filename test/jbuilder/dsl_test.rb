# frozen_string_literal: true

require_relative "../support/jbuilder_diff"

# The DSL, call by call: each case runs through real Jbuilder (the oracle
# child) and through this process's Jbuilder, and the outputs must match.
class JbuilderDslTest < Minitest::Test
  extend JbuilderDiff::DSL
  include JbuilderCases

  def test_renderer_under_test
    case JbuilderDiff::MODE
    when :jetson
      assert defined?(Jetson::Builder), "jetson/jbuilder defines Jetson::Builder"
      assert_operator Jbuilder, :<, Jetson::Builder, "::Jbuilder is Jetson's"
    else
      assert_includes Jbuilder.instance_method(:target!).source_location.first, "/jbuilder-"
    end
  end

  ann = Person.new("Ann", 41, "ann@example.com")
  bob = Person.new("Bob", 29, nil)
  people = [ann, bob]
  rows = [{ name: "Ann", age: 41 }, { name: "Bob", age: 29 }]

  # ---- empty and simple --------------------------------------------------------
  same "empty builder", ""
  same "one key", "json.content 'hello'"
  same "several keys keep their order", "json.b 1\njson.a 2\njson.c 3"
  same "empty builder attributes", "", result: :attributes
  same "keys from locals", "json.name person.name\njson.age person.age", data: { person: ann }

  # ---- method_missing: names an Object would answer, BasicObject does not -------
  same "json.type and json.id", "json.type 'admin'\njson.id 7"
  same "json.class with a value", "json.class 'warning'"
  same "json.class alone sets nothing", "json.class\njson.a 1"
  same "json.send with a name and value", "json.send :a, 1"
  same "json.send with a String value", "json.send 'x'"
  same "json.send alone", "json.send"
  same "json.method", "json.method :get"
  same "json.hash", "json.hash 'abc'"
  same "json.hash alone", "json.hash"
  same "json.display", "json.display 'shown'"
  same "json.freeze", "json.freeze true\njson.after 1"
  same "json.freeze alone then a key", "json.freeze\njson.after 1"
  same "json.object_id and json.dup", "json.object_id 3\njson.dup 4"
  same "json.to_s json.inspect json.to_json", "json.to_s 's'\njson.inspect 'i'\njson.to_json 'j'"
  same "json.as_json alone", "json.as_json\njson.k 1"
  same "Kernel names are keys", "json.format 1\njson.p 2\njson.puts 3\njson.select 4\njson.raise 5\njson.test 6\njson.print 7\njson.sleep 0\njson.loop 8"
  same "json.respond_to? is a key", "json.respond_to? :foo"
  same "json.nil? returns what set! returns", "json.n json.nil?"
  same "json.is_a? and json.kind_of?", "json.is_a? 1\njson.kind_of? 2\njson.instance_of? 3"
  same "json.then with a block is a nested key", "json.then { |j| j.a 1 }"
  same "json.tap with a block is a nested key", "json.tap { json.b 2 }"
  same "json.name json.title json.url", "json.name 'n'\njson.title 't'\njson.url 'u'"
  same "json.system with a value", "json.system 'not run'"
  same "json.instance_variables", "json.instance_variables 1\njson.instance_variable_get 2"
  same "json.present? json.blank? json.try", "json.present? 1\njson.blank? 2\njson.try 3"
  same "keys with question and bang marks", "json.admin? true\njson.save! false"
  same "json.public_send", "json.public_send :x, 1"
  same "json.__send__ calls the method", "json.__send__ :x, 1"
  same "json.instance_exec runs in the builder", "json.instance_exec { set! :inside, 1 }"
  same "json.equal? is BasicObject's", "json.r json.equal?(json)"
  same "json == and != are BasicObject's", "json.eq(json == json)\njson.ne(json != json)"
  same "private helper names are keys", "json._set 1\njson._scope 2\njson._key 3\njson._blank? 4"
  same "json.method_missing called explicitly", "json.method_missing :m, 1"

  # ---- set! ------------------------------------------------------------------
  same "set! with a String key", "json.set! 'content', 'hello'"
  same "set! with a Symbol key", "json.set! :content, 'hello'"
  same "set! with an Integer key", "json.set! 1, 'one'"
  same "set! with nil key", "json.set! nil, 'x'"
  same "set! with odd keys", "json.set! 'with space', 1\njson.set! '', 2\njson.set! '<b>&', 3\njson.set! 'ünïcødé', 4\njson.set! :'dash-sym', 5"
  same "set! with a key from a local", "json.set! key, value", data: { key: "dyn", value: [1, 2] }
  same "set! with no value sets nothing", "json.set! :a\njson.b 1"
  same "set! returns the value", "json.r(json.set!(:a, 5))"
  same "set! with a String key and Symbol key of the same name", "json.set! 'a', 1\njson.set! :a, 2"
  same "set! with a Symbol key attributes", "json.set! :a, 1\njson.set! 'b', 2", result: :attributes

  # ---- repeated keys -----------------------------------------------------------
  same "repeated key: first position, last value", "json.a 1\njson.b 2\njson.a 3"
  same "repeated key with a Hash value is replaced, not merged", "json.a({ x: 1 })\njson.a({ y: 2 })"
  same "repeated key with Array values is replaced", "json.a [1]\njson.a [2]"
  same "repeated key set to nil", "json.a 1\njson.a nil"

  # ---- blocks ------------------------------------------------------------------
  same "nested block", "json.author do\n  json.name 'David'\n  json.age 32\nend"
  same "empty block omits the key", "json.a 1\njson.empty do\nend\njson.b 2"
  same "block that only sets nil", "json.a do\n  json.b nil\nend"
  same "block that only has an empty block", "json.a do\n  json.b {}\nend"
  same "next inside a block", "json.a do\n  json.x 1\n  next\n  json.y 2\nend\njson.b 3"
  same "next first inside a block omits the key", "json.a do\n  next\nend\njson.b 3"
  same "break inside a block", "json.a do\n  json.x 1\n  break\nend\njson.b 3"
  same "repeated blocks deep-merge", "json.author do\n  json.name 'D'\n  json.meta { json.a 1 }\nend\njson.author do\n  json.age 32\n  json.meta { json.b 2 }\nend"
  same "repeated blocks: later scalar wins inside", "json.a { json.x 1 }\njson.a { json.x 2 }"
  same "repeated blocks: array values inside", "json.a { json.list [1, 2] }\njson.a { json.list [3] }"
  same "repeated blocks: array meets hash", "json.a { json.v [1] }\njson.a { json.v({ k: 1 }) }"
  same "block after a scalar", "json.a 1\njson.a { json.b 2 }"
  same "block after a Hash value merges", "json.a({ 'x' => 1 })\njson.a { json.y 2 }"
  same "block after an Array value", "json.a [1]\njson.a { json.y 2 }"
  same "block after nil", "json.a nil\njson.a { json.y 2 }"
  same "scalar after a block replaces it", "json.a { json.b 1 }\njson.a 5"
  same "nil after a block", "json.a { json.b 1 }\njson.a nil"
  same "block turned into an array by array!", "json.a do\n  json.array! [1, 2]\nend"
  same "block that does nil!", "json.a do\n  json.b 1\n  json.nil!\nend\njson.c 2"
  same "two blocks, the second does nil!", "json.a { json.b 1 }\njson.a { json.nil! }"
  same "nested block three deep", "json.a { json.b { json.c { json.d 1 } } }"
  same "block with a key and a collection-less block arg", "json.a(nil) { json.b 1 }"
  same "block with key and value false", "json.a(false) { |x| json.b x }"

  # ---- collection blocks -----------------------------------------------------------
  same "collection block", "json.people(people) do |p|\n  json.name p.name\n  json.age p.age\nend", data: { people: people }
  same "collection block with nil", "json.people(nil) { |p| json.name p }"
  same "collection block with empty Array", "json.people([]) { |p| json.name p }"
  same "collection block where no element sets anything", "json.people([1, 2]) { |p| }"
  same "collection block with next", "json.n([1, 2, 3, 4]) do |n|\n  next if n.even?\n  json.v n\nend"
  same "collection block with next on all", "json.n([1, 2]) { |n| next }"
  same "collection block with a Hash", "json.h({ a: 1, b: 2 }) { |pair| json.k pair.first\n json.v pair.last }"
  same "collection block with a Hash and two params", "json.h({ a: 1, b: 2 }) { |k, v| json.set! k, v }"
  same "collection block with a Range", "json.r(1..3) { |i| json.i i }"
  same "collection block with an Enumerator", "json.e([5, 6].each_with_index) { |v, i| json.v v; json.i i }"
  same "collection block with a lazy Enumerator", "json.l((1..3).lazy.map { |i| i * 2 }) { |x| json.x x }"
  same "array! with a lazy Enumerator", "json.array!((1..3).lazy.map { |i| i * 2 })"
  same "collection block with each_slice", "json.e((1..5).each_slice(2)) { |s| json.s s }"
  same "collection block with a Struct", "json.s(person) { |v| json.v v }", data: { person: ann }
  same "collection block with a Set", "json.s(Set[1, 2]) { |v| json.v v }"
  same "collection block with a Bag", "json.s(Bag.new([1, 2])) { |v| json.v v }"
  same "collection block with a Listish", "json.s(Listish.new([1, 2])) { |v| json.v v }"
  same "collection block elements that are arrays", "json.s([1, 2]) { |v| json.array! [v, v] }"
  same "collection block elements that are nil", "json.s([1, 2]) { |v| json.nil! }"
  same "collection block twice", "json.s([1]) { |v| json.v v }\njson.s([2]) { |v| json.v v }"
  same "collection block after a Hash value", "json.s({ a: 1 })\njson.s([2]) { |v| json.v v }"
  same "collection block after a scalar", "json.s 1\njson.s([2]) { |v| json.v v }"
  same "collection block nested", "json.a(rows) do |r|\n  json.name r[:name]\n  json.chars(r[:name].chars) { |c| json.c c }\nend", data: { rows: rows }
  same "collection block with ignore_nil inside", "json.a([1, nil]) { |v| json.v v; json.ignore_nil! }\njson.b nil"
  same "collection block with a String collection", "json.s('abc') { |c| json.c c }"

  # ---- set!(key, object, *attrs) ---------------------------------------------------
  same "set! with a Struct and attributes", "json.author person, :name, :age", data: { person: ann }
  same "set! with a PORO and attributes", "json.account account, :id, :login", data: { account: Account.new(1, "ann") }
  same "set! with a Hash and attributes is a collection", "json.author({ name: 'a', age: 1 }, :name)"
  same "set! with an Array of Structs and attributes", "json.people people, :name", data: { people: people }
  same "set! with an Array of Hashes and attributes", "json.rows rows, :name", data: { rows: rows }
  same "set! with nil and attributes", "json.author nil, :name"
  same "set! with an empty Array and attributes", "json.author [], :name"
  same "set! with a Listish and attributes", "json.l Listish.new(people), :name", data: { people: people }
  same "set! with a Range and attributes", "json.l 1..2, :to_s"
  same "set! with a Struct twice merges", "json.author person, :name\njson.author person, :age", data: { person: ann }
  same "set! with attributes after a block", "json.author { json.x 1 }\njson.author person, :name", data: { person: ann }
  same "set! with attributes after nil", "json.author nil\njson.author person, :name", data: { person: ann }
  same "set! with attributes after a scalar", "json.author 1\njson.author person, :name", data: { person: ann }
  same "set! with a missing method", "json.author person, :nope", data: { person: ann }
  same "set! with a private method", "json.account account, :secret_token", data: { account: Account.new(1, "a") }
  same "set! with a String attribute name", "json.author person, 'name'", data: { person: ann }
  same "set! attributes and a block", "json.author(people, :name) { |p| json.age p.age }", data: { people: people }

  # ---- array! ------------------------------------------------------------------
  same "array! of scalars", "json.array! [1, 'two', nil, 3.5]"
  same "array! with nil", "json.array! nil"
  same "array! with no argument", "json.array!"
  same "array! with a block", "json.array!(people) do |p|\n  json.name p.name\nend", data: { people: people }
  same "array! with attributes", "json.array! people, :name, :age", data: { people: people }
  same "array! of Hashes with attributes", "json.array! rows, :age", data: { rows: rows }
  same "array! with a Hash", "json.array!({ a: 1, b: 2 })"
  same "array! with a Hash and a block", "json.array!({ a: 1 }) { |k, v| json.k k; json.v v }"
  same "array! with a Range", "json.array! 1..4"
  same "array! with an Enumerator", "json.array! [3, 4].each_with_index"
  same "array! with a Set", "json.array! Set['x', 'y']"
  same "array! with a Struct", "json.array! person", data: { person: ann }
  same "array! twice concatenates", "json.array! [1]\njson.array! [2, 3]"
  same "array! empty then array!", "json.array! []\njson.array! [1]"
  same "array! with elements that set nothing", "json.array!([1, 2]) { |x| }"
  same "array! with next", "json.array!([1, 2, 3]) { |x| next if x == 2\n json.x x }"
  same "array! then a key", "json.array! [1]\njson.a 2"
  same "array! then a key, attributes", "json.array! [1]\njson.a 2", result: :attributes
  # What array! returns outside a view: Jbuilder's Array (alba's benchmark calls
  # `json.array!(posts) { ... }.to_json`).
  same "array! returns the Array", code: "r = nil\nJbuilder.new { |json| r = json.array!(people) { |p| json.name p.name } }\nr",
                                    data: { people: people }
  same "array! returns the Array, to_json",
       code: "Jbuilder.new { |json| break json.array!([1.5, 'x', nil]) { |v| json.v v } }.to_json"
  same "array! with attributes returns the Array",
       code: "Jbuilder.new { |json| break json.array!(people, :name, :age) }", data: { people: people }
  same "array! twice returns both", code: "Jbuilder.new { |json| json.array! [1]\nbreak json.array!([2, 3]) }"
  same "array! of scalars returns them", code: "Jbuilder.new { |json| break json.array!([1, 'two', nil]) }"
  same "array! inside a block returns that level", code: "r = nil\nJbuilder.new { |json| json.a { r = json.array!([1, 2]) } }\nr"
  same "keys then array!", "json.a 1\njson.array! [1]"
  same "keys then empty array!", "json.a 1\njson.array! []"
  same "keys then array! nil", "json.a 1\njson.array! nil"
  same "array! after nil!", "json.nil!\njson.array! [1]"
  same "array! then nil!", "json.array! [1]\njson.nil!"
  same "array! of nested arrays", "json.array!([[1, 2], [3]]) { |a| json.array! a }"
  same "array! inside a collection block", "json.list([1, 2]) { |x| json.array! [x, x * 10] }"
  same "array! with a non-enumerable", "json.array! 5"
  same "array! with a String", "json.array! 'abc'"
  same "array! of Times", "json.array! [Time.utc(2020, 1, 2, 3, 4, 5, 678_901)]"

  # ---- extract! and call ---------------------------------------------------------
  same "extract! from a Struct", "json.extract! person, :name, :age", data: { person: ann }
  same "extract! from a PORO", "json.extract! account, :id, :login, :tags", data: { account: Account.new(3, "c", %w[x y]) }
  same "extract! from a Hash with Symbol keys", "json.extract! row, :name, :age", data: { row: rows.first }
  same "extract! from a Hash with String keys", "json.extract! row, 'name'", data: { row: { "name" => "S" } }
  same "extract! from a Hash: missing key", "json.extract! row, :missing", data: { row: rows.first }
  same "extract! from a Hash: String for a Symbol key", "json.extract! row, 'name'", data: { row: rows.first }
  same "extract! from a Hash: Symbol for a String key", "json.extract! row, :name", data: { row: { "name" => "S" } }
  same "extract! from an object: missing method", "json.extract! person, :nope", data: { person: ann }
  same "extract! with no attributes", "json.extract! person", data: { person: ann }
  same "extract! with nil", "json.extract! nil, :to_s"
  same "extract! repeated keys", "json.name 'first'\njson.extract! person, :age, :name", data: { person: ann }
  same "extract! from a HashWithIndifferentAccess", "json.extract! row, :name, 'age'", data: { row: { "name" => "I", "age" => 1 }.with_indifferent_access }
  same "extract! of nil values", "json.extract! person, :email", data: { person: bob }
  same "call syntax with attributes", "json.(person, :name, :email)", data: { person: ann }
  same "call syntax with a Hash", "json.(row, :age)", data: { row: rows.first }
  same "call syntax with a block is array!", "json.(people) { |p| json.n p.name }", data: { people: people }
  same "call syntax with a block and nil", "json.(nil) { |p| json.n p }"
  same "call syntax with no attributes", "json.(person)", data: { person: ann }
  same "call syntax with a block after keys", "json.a 1\njson.([1]) { |p| json.n p }"

  # ---- merge! ------------------------------------------------------------------
  same "merge! a Hash with String keys", "json.a 1\njson.merge!('b' => 2, 'c' => { 'd' => 3 })"
  same "merge! a Hash with Symbol keys", "json.merge!(a: 1, b: 2)"
  same "merge! Symbol key colliding with a set! key", "json.a 1\njson.merge!(a: 2)"
  same "merge! Symbol key colliding, attributes", "json.a 1\njson.merge!(a: 2)", result: :attributes
  same "merge! String key colliding with a set! key", "json.a 1\njson.b 0\njson.merge!('a' => 2)"
  same "set! after merge! with a Symbol key", "json.merge!(a: 2)\njson.a 1"
  same "merge! deep-merges", "json.a { json.b 1\n json.c { json.d 1 } }\njson.merge!('a' => { 'c' => { 'e' => 2 }, 'f' => 3 })"
  same "merge! replaces arrays inside hashes", "json.a [1]\njson.merge!('a' => [2])"
  same "merge! an Array into nothing", "json.merge!([1, 2])"
  same "merge! an Array into an Array", "json.array! [1]\njson.merge!([2])"
  same "merge! an Array into keys", "json.a 1\njson.merge!([2])"
  same "merge! a Hash into an Array", "json.array! [1]\njson.merge!('a' => 1)"
  same "merge! an empty Hash", "json.merge!({})"
  same "merge! an empty Hash after keys", "json.a 1\njson.merge!({})"
  same "merge! nil", "json.a 1\njson.merge!(nil)"
  same "merge! nil into nothing", "json.merge!(nil)"
  same "merge! a String", "json.merge!('x')"
  same "merge! another builder", "other = Jbuilder.new { |j| j.x 1; j.y { j.z 2 } }\njson.a 0\njson.merge!(other)"
  same "merge! an empty builder", "json.a 0\njson.merge!(Jbuilder.new)"
  same "merge! an array builder", "json.merge!(Jbuilder.new { |j| j.array! [1, 2] })"
  same "merge! a HashWithIndifferentAccess", "json.merge!(h)", data: { h: { "a" => 1 }.with_indifferent_access }
  same "merge! twice", "json.merge!('a' => { 'b' => 1 })\njson.merge!('a' => { 'c' => 2 })"
  same "merge! inside a block", "json.outer { json.merge!(inner: true) }"
  same "merge! Integer keys", "json.merge!(1 => 'one', nil => 'nil')"
  same "merge! keeps the caller's Hash unchanged", "h = { 'a' => { 'b' => 1 } }\njson.a { json.c 2 }\njson.merge!(h)\njson.h h"
  same "merge! with nil values", "json.merge!('a' => nil)"
  same "merge! a Struct", "json.merge!(person)", data: { person: ann }

  # ---- child! ------------------------------------------------------------------
  same "child!", "json.comments do\n  json.child! { json.content 'hello' }\n  json.child! { json.content 'world' }\nend"
  same "child! at the top", "json.child! { json.a 1 }\njson.child! { json.a 2 }"
  same "child! discards keys set before", "json.a 1\njson.child! { json.b 2 }"
  same "empty child!", "json.child! {}\njson.child! { json.a 1 }"
  same "child! with next", "json.child! { next }"
  same "child! after array!", "json.array! [1]\njson.child! { json.b 2 }"
  same "array! after child!", "json.child! { json.b 2 }\njson.array! [3]"
  same "key after child!", "json.child! { json.b 2 }\njson.c 3"
  same "child! after nil!", "json.nil!\njson.child! { json.b 2 }"
  same "child! with array! inside", "json.child! { json.array! [1] }"
  same "child! with nil! inside", "json.child! { json.nil! }"
  same "child! in a collection block", "json.a([1, 2]) { |x| json.child! { json.x x } }"

  # ---- nil! / null! ---------------------------------------------------------------
  same "nil!", "json.nil!"
  same "null!", "json.null!"
  same "nil! discards keys", "json.a 1\njson.nil!"
  same "nil! then a key", "json.nil!\njson.a 1"
  same "nil! then a block", "json.nil!\njson.a { json.b 1 }"
  same "nil! then extract!", "json.nil!\njson.extract! person, :name", data: { person: ann }
  same "nil! then merge!", "json.nil!\njson.merge!('a' => 1)"
  same "nil! then merge! nil", "json.nil!\njson.merge!(nil)"
  same "nil! then nil!", "json.nil!\njson.null!"
  same "nil! inside a block then a key there", "json.a do\n  json.nil!\n  json.b 1\nend"
  same "a key set to nil then a block for it", "json.a nil\njson.a { json.b 1 }"
  same "nil! then set! with attributes", "json.nil!\njson.p person, :name", data: { person: ann }
  same "nil! then a collection block", "json.nil!\njson.c([1]) { |x| json.x x }"
  same "nil! attributes", "json.a 1\njson.nil!", result: :attributes

  # ---- attributes! and target! ------------------------------------------------------
  same "attributes! of a nested document", "json.a { json.b [1, { c: 2 }] }\njson.merge!(d: :e)", result: :attributes
  same "attributes! keeps objects", "json.t time\njson.p person", data: { time: Time.utc(2020, 1, 1), person: ann }, result: :attributes
  same "attributes! of an array", "json.array!([1, 2]) { |x| json.x x }", result: :attributes
  same "attributes! used as a value", "json.a 1\njson.copy json.attributes!"
  same "target! inside the template", "json.a 1\njson.json json.target!"
  same "target! called twice", code: "json = Jbuilder.new { |j| j.a 1 }\n[json.target!, json.target!].join('|')"
  same "target! then more keys", code: "json = Jbuilder.new { |j| j.a 1 }\nfirst = json.target!\njson.b 2\nfirst + json.target!"

  # ---- nested builders ---------------------------------------------------------------
  same "a builder as a value", "other = Jbuilder.new { |j| j.name 'x' }\njson.person other"
  same "an empty builder as a value", "json.person Jbuilder.new"
  same "an array builder as a value", "json.list Jbuilder.new { |j| j.array! [1, 2] }"
  same "a nil! builder as a value", "json.x Jbuilder.new { |j| j.nil! }"
  same "a builder as a value twice", "other = Jbuilder.new { |j| j.a 1 }\njson.p other\njson.q other"
  same "a builder in an array", "json.list [Jbuilder.new { |j| j.a 1 }]"
  same "a builder in a Hash", "json.h({ 'b' => Jbuilder.new { |j| j.a 1 } })"
  same "a builder value then a block", "json.p Jbuilder.new { |j| j.a 1 }\njson.p { json.b 2 }"
  same "nested builder with its own key format", "json.p Jbuilder.new(key_formatter: Jbuilder::KeyFormatter.new(:upcase)) { |j| j.abc 1 }\njson.xyz 2"
  same "a builder built inside a block", "json.outer do\n  inner = Jbuilder.new { |j| j.a 1 }\n  json.inner inner\nend"
  same "Jbuilder.encode inside a template", "json.s Jbuilder.encode { |j| j.a '<' }"

  # ---- deep nesting ----------------------------------------------------------------
  same "deep nesting of blocks", "build = ->(n) { n.zero? ? json.leaf(true) : json.set!(\"l\#{n}\") { build.(n - 1) } }\nbuild.(60)"
  same "deep nesting of collection blocks", "build = ->(n) { n.zero? ? json.leaf(n) : json.l([n]) { |x| build.(x - 1) } }\nbuild.(40)"
  same "deep data", "json.d deep", data: { deep: (1..45).reduce({ "leaf" => [1] }) { |acc, i| { "k#{i}" => [acc] } } }
  same "data deeper than ActiveSupport's nesting limit", "json.d deep", data: { deep: (1..60).reduce({ "leaf" => [1] }) { |acc, i| { "k#{i}" => [acc] } } }
  same "wide document", "200.times { |i| json.set! \"k\#{i}\", i }"
end
