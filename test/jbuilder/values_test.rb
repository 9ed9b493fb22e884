# frozen_string_literal: true

require_relative "../support/jbuilder_diff"

# Values ActiveSupport encodes in its own way, set through the DSL (as a key's
# value, inside Arrays and Hashes, through array!, extract! and merge!), and
# compared with real Jbuilder.
class JbuilderValuesTest < Minitest::Test
  extend JbuilderDiff::DSL
  include JbuilderCases

  zone = ActiveSupport::TimeZone["Asia/Kolkata"]
  values = {
    "nil" => nil,
    "true" => true,
    "false" => false,
    "zero" => 0,
    "negative Integer" => -42,
    "Integer at 2**62" => 2**62,
    "Integer at 2**64" => 2**64,
    "negative big Integer" => -(10**30),
    "Float" => 1.5,
    "Float 0.1" => 0.1,
    "Float -0.0" => -0.0,
    "Float 1e20" => 1e20,
    "Float 1e-7" => 1e-7,
    "Float 1.0e16" => 1.0e16,
    "Float NaN" => Float::NAN,
    "Float Infinity" => Float::INFINITY,
    "Float -Infinity" => -Float::INFINITY,
    "Rational" => Rational(1, 3),
    "Complex" => Complex(1, 2),
    "BigDecimal" => BigDecimal("12.50"),
    "BigDecimal with exponent" => BigDecimal("1e-20"),
    "BigDecimal big" => BigDecimal("123456789012345678901234567890.123"),
    "BigDecimal NaN" => BigDecimal("NaN"),
    "BigDecimal Infinity" => BigDecimal("Infinity"),
    "Symbol" => :active,
    "Symbol with odd text" => :"<odd & sym>",
    "String" => "plain",
    "empty String" => "",
    "String with HTML entities" => "<script>alert('x' && \"y\")</script>",
    "String with U+2028 and U+2029" => "a\u2028b\u2029c",
    "String with control characters" => "tab\t nl\n cr\r nul\u0000 bell\u0007 del\u007f",
    "String with quotes and backslashes" => "say \"hi\" \\ / end",
    "String with non-ASCII" => "héllo wörld ✓ 日本 😀",
    "String in ASCII-8BIT, ASCII only" => "binary ok".b,
    "String in ASCII-8BIT, high bytes" => "caf\xC3\xA9".b,
    "String in US-ASCII" => "us ascii".encode("US-ASCII"),
    "String in ISO-8859-1" => "caf\xE9".dup.force_encoding("ISO-8859-1"),
    "String in UTF-16LE" => "hi".encode("UTF-16LE"),
    "invalid UTF-8" => "bad \xFF byte".dup.force_encoding("UTF-8"),
    "String subclass" => Slug.new("a-slug"),
    "Time UTC with usec" => Time.utc(2024, 2, 29, 23, 59, 59, 123_456),
    "Time UTC without fraction" => Time.utc(2001, 1, 1),
    "Time with an offset" => Time.new(2024, 5, 6, 7, 8, 9.5r, "+05:30"),
    "Time with a negative offset" => Time.new(1999, 12, 31, 23, 59, 59, "-08:00"),
    "Time with nanoseconds" => Time.at(1_700_000_000, 999_999_999, :nsec).utc,
    "Time before 1970" => Time.utc(1901, 12, 13, 20, 45, 52, 7),
    "TimeWithZone" => zone.local(2024, 1, 15, 10, 30, 0.25r),
    "TimeWithZone UTC" => ActiveSupport::TimeZone["UTC"].local(2020, 6, 1, 0, 0, 0),
    "Date" => Date.new(2024, 2, 29),
    "Date BC" => Date.new(-44, 3, 15),
    "DateTime" => DateTime.new(2020, 1, 2, 3, 4, 5.25r, "+02:00"),
    "DateTime UTC" => DateTime.new(2020, 1, 2, 3, 4, 5),
    "Range" => (1..3),
    "Struct" => Person.new("Ann", 41, "a@example.com"),
    "keyword Struct" => Point.new(x: 1, y: 2),
    "PORO" => Account.new(1, "ann", %w[a b], Person.new("O", 1, nil), Time.utc(2020)),
    "object with as_json" => Money.new(1250, "EUR"),
    "object with to_json only" => LegacyJson.new("x"),
    "object with to_hash" => HashLike.new([["k", 1], [:s, :v]]),
    "object without ivars" => Opaque.new,
    "Enumerable object" => Bag.new([1, 2]),
    "Set" => Set[1, 2],
    "Hash with Symbol keys" => { a: 1, b: { c: :d } },
    "Hash with mixed keys" => { "a" => 1, b: 2, 3 => 4, nil => 5, 1.5 => 6 },
    "Hash with Symbol and String for one key" => { "k" => 1, k: 2 },
    "Hash with object keys" => { Person.new("K", 1, nil) => 1, Time.utc(2000) => 2 },
    "HashWithIndifferentAccess" => { "a" => { "b" => 1 } }.with_indifferent_access,
    "Array of mixed values" => [1, "two", :three, nil, [4.5], { "six" => 6 }],
    "nested empty containers" => { "a" => [], "h" => {}, "n" => [[], [{}]] },
    "Module" => Comparable,
    "Class" => Person,
    "Exception" => ArgumentError.new("bad"),
    "ActiveSupport::Duration" => 3.days,
    "URL String" => "https://example.com/?a=1&b=<2>"
  }

  values.each do |label, value|
    same "value: #{label}", "json.v value", data: { value: value }
    same "value in an Array: #{label}", "json.list [value, value]", data: { value: value }
  end

  same "every value in one document", "values.each { |label, v| json.set! label, v }", data: { values: values.except("invalid UTF-8") }
  same "every value through array!", "json.array! values.values", data: { values: values.except("invalid UTF-8") }
  same "every value through merge!", "json.merge!(values)", data: { values: values.except("invalid UTF-8") }

  same "value: Method", "json.v 1.method(:+)"
  same "value: Proc", "json.v(-> { 1 })"
  same "invalid UTF-8 as a key", "json.set! key, 1", data: { key: "k\xFF".dup.force_encoding("UTF-8") }
  same "invalid UTF-8 deep inside", "json.a { json.b [1, { 'c' => s }] }", data: { s: "\xC3".dup.force_encoding("UTF-8") }
  same "invalid UTF-8 after valid keys", "json.ok 1\njson.bad s\njson.later 2", data: { s: "\xE2\x82".dup.force_encoding("UTF-8") }
  same "invalid ASCII-8BIT high bytes as a key", "json.set! key, 1", data: { key: "k\xFF".b }
  same "a Symbol key with non-ASCII", "json.set! :ключ, 1"
  same "keys needing escapes", "json.set! \"q\\\"b\\\\<&>\\u2028\", 1"
  same "Time as a Hash key in merge!", "json.merge!(t => 1)", data: { t: Time.utc(2020, 1, 1) }
  same "value whose as_json raises", "json.ok 1\njson.bad Exploding.new"
  same "value whose as_json raises, in an array", "json.array! [1, Exploding.new]"
  same "value whose as_json returns a Symbol-keyed Hash", "json.v obj", data: { obj: HashLike.new([[:a, Time.utc(2020)]]) }
  same "Money values in a collection block", "json.prices(list) { |m| json.m m }", data: { list: [Money.new(1, "USD"), Money.new(250, "JPY")] }
  same "extract! of special values", "json.extract! account, :created_at, :owner, :tags", data: { account: Account.new(1, "a", [:x, 1.5], Person.new("O", 1, nil), Time.utc(2020, 1, 2, 3, 4, 5, 600_000)) }
  same "a large String", "json.s s", data: { s: ("<abc\u2028é>" * 5000) }
  same "many Times", "json.array! times", data: { times: Array.new(50) { |i| Time.utc(2000 + i, 1 + (i % 12), 1 + i % 28, i % 24, i, i, i * 1000) } }
  same "time_precision and escaping settings are read at render time", code: <<~RUBY
    before = [ActiveSupport::JSON::Encoding.time_precision, ActiveSupport.escape_html_entities_in_json]
    begin
      ActiveSupport::JSON::Encoding.time_precision = 0
      ActiveSupport.escape_html_entities_in_json = false
      Jbuilder.encode { |json| json.t Time.utc(2020, 1, 1, 0, 0, 0, 500_000); json.s "<&>" }
    ensure
      ActiveSupport::JSON::Encoding.time_precision, ActiveSupport.escape_html_entities_in_json = before
    end
  RUBY
  same "use_standard_json_time_format false", code: <<~RUBY
    begin
      ActiveSupport.use_standard_json_time_format = false
      Jbuilder.encode { |json| json.t Time.utc(2020, 1, 1, 12); json.d Date.new(2020, 1, 2) }
    ensure
      ActiveSupport.use_standard_json_time_format = true
    end
  RUBY
end
