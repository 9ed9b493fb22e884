# frozen_string_literal: true

require_relative "jbuilder_cases"

# Seeded random Jbuilder templates for the differential tests: template
# source made of the DSL's calls (keys, set!, nested and repeated blocks,
# collection blocks with next, set! with attributes, extract!, call syntax,
# merge!, array!, child!, nil!, key_format!, deep_format_keys!, ignore_nil!,
# nested builders, rescued errors) plus random data for its locals.
#
# Template i of seed S depends on (S, i) only, so one failing template can be
# generated again alone. Templates may raise; the oracle then tells which
# error, and both sides must raise it.
class JbuilderGenerator
  include JbuilderCases

  MAX_DEPTH = 3
  SCALARS = 8 # size of the `s` local

  # Keys used through method_missing: a small pool, so keys repeat.
  METHOD_KEYS = %w[a b c id name type title first_name last_name created_at items meta url].freeze
  # Keys used through set!: odd Strings and Symbols too.
  SET_KEYS = ['"a"', ":a", '"b"', ":first_name", '"first_name"', '"class"', '"with space"', '""', '"<k&>"',
              '"ünï"', ':"dash-key"', "1", '"\u2028"', ":id"].freeze
  FORMATS = ["camelize: :lower", ":upcase", ":camelize", "->(k) { k.reverse }", ":dasherize",
             ":downcase, ->(k) { k + '_' }", "", "camelize: :upper"].freeze
  LITERALS = ["1", "-2", "0", "2**64", "1.5", "0.1", "-0.0", "nil", "nil", "true", "false", '"str"', '"<&>"',
              ":sym", "[]", "{}", "[1, nil, \"x\"]", "{ first_name: 1, \"last_name\" => [2, { deep_key: 3 }] }",
              "{ \"a\" => 1, a: 2 }", "Time.utc(2020, 1, 2, 3, 4, 5, 6789)", "BigDecimal(\"3.30\")", "Float::NAN",
              "Date.new(2021, 12, 31)", "1r/3", "Money.new(995, 'EUR')", "(1..3)"].freeze
  NICE_FLOATS = [0.5, 1.25, -3.75, 0.1, 100.0, 1e20, 2.5e-05, -0.0, 3.0e-9, Float::NAN, Float::INFINITY, 123.456].freeze
  WORDS = ["x", "hello", "<b>", "a&b", "\u2028", "é", "日本", "😀", "quote\"d", "back\\slash", "tab\t", "nul\u0000",
           "", "line\nbreak", "</script>", "ok"].freeze
  ZONES = ["UTC", "Asia/Kolkata", "America/New_York", "Pacific/Chatham"].freeze

  attr_reader :seed, :index

  def initialize(seed, index)
    @seed = seed
    @index = index
    @rng = Random.new((seed * 1_000_003) + index)
    @builder_vars = 0
  end

  # Arguments for JbuilderDiff.register.
  def build
    data = {
      s: Array.new(SCALARS) { scalar },
      people: chance(0.05) ? nil : Array.new(@rng.rand(0..3)) { person },
      person: chance(0.9) ? person : Account.new(@rng.rand(100), word, [word], nil, time),
      rows: Array.new(@rng.rand(0..3)) { row },
      row: row,
      nums: Array.new(@rng.rand(0..4)) { @rng.rand(-5..5) },
      h: nested_hash(2)
    }
    source = statements("json", 0, [], top: true).join("\n")
    options = { data: data }
    options[:args] = constructor_args if chance(0.25)
    options[:setup] = class_setup if chance(0.12)
    options[:result] = :attributes if chance(0.08)
    [source, options]
  end

  private

  def chance(p) = @rng.rand < p
  def pick(list) = list[@rng.rand(list.size)]

  # ---- data --------------------------------------------------------------------

  def word
    Array.new(@rng.rand(1..3)) { pick(WORDS) }.join
  end

  def time
    Time.utc(@rng.rand(1950..2050), @rng.rand(1..12), @rng.rand(1..28), @rng.rand(0..23), @rng.rand(0..59),
             @rng.rand(0..59), @rng.rand(0..999_999))
  end

  def scalar
    case @rng.rand(100)
    when 0...14 then @rng.rand(-1000..1000)
    when 14...17 then (2**64) + @rng.rand(1000)
    when 17...25 then pick(NICE_FLOATS)
    when 25...45 then word
    when 45...52 then nil
    when 52...56 then true
    when 56...59 then false
    when 59...63 then pick(%i[active draft <sym> first_name])
    when 63...70 then time
    when 70...74 then ActiveSupport::TimeZone[pick(ZONES)].at(time)
    when 74...77 then Date.new(@rng.rand(1900..2100), @rng.rand(1..12), @rng.rand(1..28))
    when 77...81 then BigDecimal("#{@rng.rand(-9999..9999)}.#{@rng.rand(0..999)}")
    when 81...83 then Rational(@rng.rand(1..9), @rng.rand(1..9))
    when 83...86 then Money.new(@rng.rand(0..99_999), pick(%w[EUR USD JPY]))
    when 86...89 then person
    when 89...92 then [@rng.rand(10), word]
    when 92...95 then { "k" => word, s: @rng.rand(10) }
    when 95...97 then Slug.new(word)
    when 97...99 then DateTime.new(2001, 2, 3, 4, 5, 6)
    else chance(0.3) ? "bad \xFF".dup.force_encoding(Encoding::UTF_8) : word
    end
  end

  def person
    Person.new(word, @rng.rand(0..99), chance(0.3) ? nil : "#{pick(%w[ann bob cy])}@example.com")
  end

  def row
    if chance(0.9)
      { name: word, age: @rng.rand(0..99), email: chance(0.5) ? nil : "e@x" }
    else
      { "name" => word, "age" => @rng.rand(0..99) }
    end
  end

  def nested_hash(depth)
    Array.new(@rng.rand(1..3)).to_h do
      key = pick(["first_name", :last_name, "home_address", :zip_code, "id", :id])
      value = depth.positive? && chance(0.4) ? nested_hash(depth - 1) : scalar
      [key, chance(0.15) ? [value, scalar] : value]
    end
  end

  # ---- configuration -------------------------------------------------------------

  # The texts whose chance comes up, in order, from [probability, text]
  # pairs; a text that draws values of its own is a lambda, called only when
  # its chance came up, so the random stream is read as it always was
  # (each chance, then that text's picks) and a seed gives the same cases.
  def some_of(*choices)
    choices.filter_map { |p, text| (text.respond_to?(:call) ? text.call : text) if chance(p) }
  end

  def constructor_args
    some_of([0.5, -> { "ignore_nil: #{pick(%w[true false])}" }],
            [0.5, -> { "key_formatter: Jbuilder::KeyFormatter.new(#{pick(FORMATS)})" }],
            [0.3, "deep_format_keys: true"]).join(", ")
  end

  def class_setup
    lines = some_of([0.6, -> { "Jbuilder.key_format #{pick(FORMATS)}" }], [0.4, "Jbuilder.ignore_nil"],
                    [0.3, "Jbuilder.deep_format_keys"])
    lines.empty? ? "Jbuilder.ignore_nil" : lines.join("\n")
  end

  # ---- template --------------------------------------------------------------------

  # items: [[variable name, kind], ...] visible at this point (collection
  # block variables); kind says which expressions fit the item.
  #
  # After a statement that turns the level into an array (array!, child!,
  # merge! of an Array, the call syntax with a block) the level mostly goes
  # on with such statements, after keys it mostly does not turn into an
  # array, and after nil! it mostly stops: otherwise most templates would end
  # in ArrayError, MergeError or NullError. `rescuing` is true inside
  # a begin/rescue, the only place a bare raise goes.
  def statements(var, depth, items, top: false, rescuing: false)
    count = top ? @rng.rand(1..6) : @rng.rand(1..4)
    mode = :empty
    lines = []
    count.times do
      break if mode == :null && !chance(0.15)

      kind = statement_kind(depth, rescuing, mode)
      kind = :key if mode == :object && MERGING_ARRAYS.include?(kind) && !chance(0.1)
      mode = :object if mode == :empty && OBJECT_MAKING.include?(kind)
      mode = :array if ARRAY_MAKING.include?(kind)
      mode = :null if kind == :nil
      lines.concat(Array(send("stmt_#{kind}", var, depth, items)))
    end
    lines
  end

  STATEMENTS = {
    key: 24, set: 8, block: 9, collection: 7, attrs: 4, extract: 3, call_attrs: 1, call_block: 1, merge: 5,
    merge_array: 1, array: 3, child: 2, nil: 1, key_format: 3, deep_format: 1, ignore_nil: 2, next: 2,
    rescue: 3, raise: 2, builder: 2, merge_builder: 1
  }.freeze
  ARRAY_STATEMENTS = { array: 3, child: 2, merge_array: 1, call_block: 1, key_format: 1, ignore_nil: 1 }.freeze
  ARRAY_MAKING = %i[array child merge_array call_block].freeze
  MERGING_ARRAYS = %i[array merge_array call_block].freeze # MergeError after keys
  OBJECT_MAKING = %i[key set block collection attrs extract call_attrs merge builder].freeze
  NESTING = %i[block collection child rescue builder merge_builder array call_block].freeze

  def statement_kind(depth, rescuing, mode)
    kind = weighted(mode == :array && !chance(0.12) ? ARRAY_STATEMENTS : STATEMENTS)
    kind = :key if depth >= MAX_DEPTH && NESTING.include?(kind)
    kind = :key if kind == :next && depth.zero?
    kind = :key if kind == :raise && !rescuing && !chance(0.05)
    kind
  end

  def weighted(table)
    roll = @rng.rand(table.values.sum)
    table.each do |name, weight|
      return name if roll < weight

      roll -= weight
    end
  end

  def indent(lines)
    lines.map { |line| "  #{line}" }
  end

  def key
    pick(METHOD_KEYS)
  end

  def value(items)
    roll = @rng.rand
    if items.any? && roll < 0.3
      item_value(pick(items))
    elsif roll < 0.6
      "s[#{@rng.rand(SCALARS)}]"
    elsif roll < 0.7
      pick(%w[h person people rows row nums])
    else
      pick(LITERALS)
    end
  end

  def item_value((name, kind))
    case kind
    when :person then "#{name}.#{pick(%w[name age email])}"
    when :row then pick(["#{name}[:name]", "#{name}[:age]", "#{name}.fetch(:email, nil)", name])
    when :int then pick([name, "#{name} * 2", "#{name}.even?"])
    when :pair then pick(["#{name}.first", "#{name}.last", name])
    else name
    end
  end

  def collection
    pick([["people", :person], ["people", :person], ["rows", :row], ["nums", :int], ["(1..3)", :int],
          ["h", :pair], ["s", :scalar], ["nil", :scalar], ["[]", :scalar], ["Listish.new(nums)", :int]])
  end

  def item_name(depth)
    "x#{depth}"
  end

  def stmt_key(var, _depth, items)
    "#{var}.#{key}#{argument(value(items))}"
  end

  # A Hash literal after a method name without parentheses would be a block.
  def argument(expression)
    expression.start_with?("{") || chance(0.3) ? "(#{expression})" : " #{expression}"
  end

  def stmt_set(var, _depth, items)
    "#{var}.set! #{pick(SET_KEYS)}, #{value(items)}"
  end

  def stmt_block(var, depth, items)
    head = chance(0.8) ? "#{var}.#{key} do" : "#{var}.set! #{pick(SET_KEYS)} do"
    body = chance(0.08) ? [] : statements(var, depth + 1, items)
    [head, *indent(body), "end"]
  end

  # A block over a random collection, its element named for the depth: the
  # block's first line (the collection's code and the element's name given)
  # and its statements.
  def collection_block(var, depth, items)
    coll, kind = collection
    x = item_name(depth)
    [yield(coll, x), *indent(statements(var, depth + 1, items + [[x, kind]])), "end"]
  end

  def stmt_collection(var, depth, items)
    collection_block(var, depth, items) { |coll, x| "#{var}.#{key}(#{coll}) do |#{x}|" }
  end

  def attributes_for(kind)
    case kind
    when :row then chance(0.05) ? ":name, :missing" : pick([":name", ":name, :age", ":age, :email", ":age", ":email, :name"])
    else chance(0.05) ? ":name, :nope" : pick([":name", ":name, :age", ":age, :email", ":email", ":age", ":email, :name"])
    end
  end

  def stmt_attrs(var, _depth, items)
    target, kind = pick([["person", :person], ["people", :person], ["rows", :row], ["person", :person],
                         ["people", :person], ["rows", :row], ["row", :row], *items.select { |_, k| k == :person || k == :row }])
    "#{var}.#{key} #{target}, #{attributes_for(kind)}"
  end

  def stmt_extract(var, _depth, items)
    target, kind = pick([["person", :person], ["row", :row], *items.select { |_, k| k == :person || k == :row }])
    "#{var}.extract! #{target}, #{attributes_for(kind)}"
  end

  def stmt_call_attrs(var, _depth, _items)
    target, kind = pick([["person", :person], ["row", :row]])
    "#{var}.(#{target}, #{attributes_for(kind)})"
  end

  def stmt_call_block(var, depth, items)
    collection_block(var, depth, items) { |coll, x| "#{var}.(#{coll}) do |#{x}|" }
  end

  def stmt_merge(var, _depth, items)
    hash = pick(["{ a: 1 }", "{ \"a\" => { \"x\" => 1 } }", "{ first_name: #{value(items)} }",
                 "{ \"b\" => [1], c: nil }", "h", "row", "{}", "{ \"items\" => { \"n\" => #{value(items)} } }"])
    "#{var}.merge!(#{hash})"
  end

  def stmt_merge_array(var, _depth, items)
    "#{var}.merge!([#{value(items)}, #{value(items)}])"
  end

  def stmt_array(var, depth, items)
    case @rng.rand(3)
    when 0 then "#{var}.array! #{pick(%w[nums people s rows nil [] h])}"
    when 1 then "#{var}.array! #{pick(%w[people rows])}, #{attributes_for(:person)}"
    else
      coll, kind = collection
      x = item_name(depth)
      ["#{var}.array!(#{coll}) do |#{x}|", *indent(statements(var, depth + 1, items + [[x, kind]])), "end"]
    end
  end

  def stmt_child(var, depth, items)
    ["#{var}.child! do", *indent(chance(0.1) ? [] : statements(var, depth + 1, items)), "end"]
  end

  def stmt_nil(var, _depth, _items)
    chance(0.5) ? "#{var}.nil!" : "#{var}.null!"
  end

  def stmt_key_format(var, _depth, _items)
    "#{var}.key_format! #{pick(FORMATS)}"
  end

  def stmt_deep_format(var, _depth, _items)
    chance(0.8) ? "#{var}.deep_format_keys!" : "#{var}.deep_format_keys! false"
  end

  def stmt_ignore_nil(var, _depth, _items)
    chance(0.7) ? "#{var}.ignore_nil!" : "#{var}.ignore_nil! false"
  end

  def stmt_next(_var, _depth, items)
    condition = items.any? && chance(0.5) ? item_value(pick(items)) : "s[#{@rng.rand(SCALARS)}]"
    "next #{pick(%w[if unless])} #{condition}"
  end

  def stmt_rescue(var, depth, items)
    ["begin", *indent(statements(var, depth + 1, items, rescuing: true)), "rescue StandardError => e",
     "  #{var}.set! \"rescued\", e.class.name", "end"]
  end

  def stmt_raise(_var, _depth, _items)
    pick(["raise 'boom'", "raise ArgumentError, 'bad'", "raise KeyError, 'key'"])
  end

  def stmt_builder(var, depth, items)
    inner = "j#{@builder_vars += 1}"
    args = chance(0.3) ? "(#{constructor_args})" : ""
    ["#{var}.#{key}(Jbuilder.new#{args} do |#{inner}|", *indent(statements(inner, depth + 1, items)), "end)"]
  end

  def stmt_merge_builder(var, depth, items)
    inner = "j#{@builder_vars += 1}"
    ["#{var}.merge!(Jbuilder.new do |#{inner}|", *indent(statements(inner, depth + 1, items)), "end)"]
  end
end
