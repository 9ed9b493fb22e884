# frozen_string_literal: true

# Loaded by both sides of the Jbuilder differential tests: the oracle child
# (real Jbuilder) and the test process (jetson/jbuilder). It holds the classes
# template data is made of, so that data Marshal'ed by one process loads in the
# other, and the one function that renders a case, so that both processes run
# a template exactly the same way.
#
# Load it after the Jbuilder under test (`require "jbuilder"` or
# `require "jetson/jbuilder"`): it does not load Jbuilder itself.

require "bigdecimal"
require "bigdecimal/util"
require "date"
require "stringio"
require "active_support"
require "active_support/time"
require "active_support/json"
require "active_support/core_ext/hash/indifferent_access"
require "set"

# Warnings are compared between the two processes, so both show the same
# categories (minitest turns deprecation warnings on; the json gem's
# duplicate-key warning is one).
Warning[:deprecated] = true

module JbuilderCases
  # ---- data classes ---------------------------------------------------------

  # Structs are not collections for set!(key, object, *attrs) even though they
  # respond to map and count.
  Person = Struct.new(:name, :age, :email)
  Point = Struct.new(:x, :y, keyword_init: true)
  Tag = Struct.new(:label)

  # A plain object read through public readers (extract!, set! with attrs).
  class Account
    attr_reader :id, :login, :tags, :owner, :created_at

    def initialize(id, login, tags = [], owner = nil, created_at = nil)
      @id = id
      @login = login
      @tags = tags
      @owner = owner
      @created_at = created_at
    end

    def secret_token
      "s3cr3t"
    end
    private :secret_token
  end

  # An object with its own as_json: ActiveSupport calls it.
  class Money
    attr_reader :cents, :currency

    def initialize(cents, currency)
      @cents = cents
      @currency = currency
    end

    def as_json(*)
      { "amount" => format("%.2f", cents / 100.0), "currency" => currency }
    end
  end

  # An object with a to_json but no as_json of its own: ActiveSupport's
  # Object#as_json (its instance variables) wins inside a document.
  class LegacyJson
    def initialize(value)
      @value = value
    end

    def to_json(*)
      %({"legacy":#{@value.to_s.inspect}})
    end
  end

  # An object that converts to a Hash (ActiveSupport's as_json uses to_hash).
  class HashLike
    def initialize(pairs)
      @pairs = pairs
    end

    def to_hash
      @pairs.to_h
    end
  end

  # An object without instance variables (as_json gives {}).
  class Opaque
  end

  # Responds to map and count without being Enumerable: a collection for
  # set!(key, object, *attrs).
  class Listish
    def initialize(items)
      @items = items
    end

    def map(&block) = @items.map(&block)
    def count = @items.count
  end

  # An Enumerable (each only) of items.
  class Bag
    include Enumerable

    def initialize(items)
      @items = items
    end

    def each(&block) = @items.each(&block)
  end

  # A value whose as_json raises, to see where the error surfaces.
  class Exploding
    def as_json(*)
      raise ArgumentError, "as_json exploded"
    end
  end

  # A String subclass (ActiveSupport encodes it as a String).
  class Slug < String
  end

  # Stands in for a result that Marshal cannot carry (its inspect is kept).
  Unmarshalable = Struct.new(:inspect_text)

  # ---- rendering -------------------------------------------------------------

  # A case is a Hash:
  #   name:    unique label
  #   source:  the template body, run inside `Jbuilder.new(ARGS) do |json| ... end`
  #   data:    Marshal'ed Hash of local variable name (Symbol) => value
  #   args:    constructor arguments, Ruby source (e.g. "ignore_nil: true")
  #   setup:   Ruby source run before (class-level defaults: Jbuilder.key_format ...)
  #   result:  :target (json.target!, default) or :attributes (json.attributes!)
  #   code:    instead of the above, a whole Ruby expression whose value is the result
  # The outcome is [:ok, value, warnings] or [:error, class_name, message,
  # exception, warnings], warnings being how many were printed.
  def self.program(kase)
    return kase[:code] if kase[:code]

    finish = kase[:result] == :attributes ? "attributes!" : "target!"
    "Jbuilder.new(#{kase[:args]}) do |json|\n#{kase[:source]}\nend.#{finish}"
  end

  def self.render(kase)
    scope = fresh_binding
    Marshal.load(kase[:data]).each { |name, value| scope.local_variable_set(name, value) }
    saved_stdout = $stdout
    saved_stderr = $stderr
    $stdout = StringIO.new # what a template prints is not compared
    $stderr = warnings = StringIO.new
    begin
      eval(kase[:setup], scope, "(setup #{kase[:name]})", 1) if kase[:setup] # rubocop:disable Security/Eval
      value = eval(program(kase), scope, "(template #{kase[:name]})", 0) # rubocop:disable Security/Eval
      outcome = [:ok, value]
    rescue Interrupt, SystemExit
      raise
    rescue Exception => e # rubocop:disable Lint/RescueException -- SystemStackError, ScriptError too
      outcome = [:error, e.class.name, normalize_message(e.message), e]
    ensure
      $stdout = saved_stdout
      $stderr = saved_stderr
      reset_defaults
    end
    outcome << count_warnings(warnings.string)
  end

  # Warnings printed while rendering (the json gem's duplicate-key warning,
  # for one) are compared by count: their texts name files.
  def self.count_warnings(text)
    text.scan(/warning:/).size
  end

  # Object addresses differ between runs; error_highlight (Ruby 3.1) appends
  # the source line that raised to NameError messages (a line of jbuilder.rb
  # on one side, of Jetson on the other), and did_you_mean's suggestions
  # depend on everything each process loaded. All three are dropped.
  def self.normalize_message(message)
    message = message.to_s
    message = message.sub(/\n\n[^\n]*\n *\^+ *$/, "") if message.include?("\n\n")
    message = message.sub(/\nDid you mean\?.*\z/m, "")
    message.gsub(/0x[0-9a-f]{6,}/, "0xXXXX")
  end

  # Back to Jbuilder's defaults after a case that changed them. A key format
  # without formats behaves as no key format; the class variable is cleared too
  # when it exists, so later cases take the no-formatter path.
  def self.reset_defaults
    Jbuilder.ignore_nil(false)
    Jbuilder.deep_format_keys(false)
    Jbuilder.key_format
    Jbuilder.class_variable_set(:@@key_formatter, nil) if Jbuilder.class_variable_defined?(:@@key_formatter)
  end

  # What goes back over the pipe: the value itself when Marshal can carry it.
  def self.portable(outcome)
    return [:error, outcome[1], outcome[2], nil, outcome[4]] if outcome.first == :error

    Marshal.dump(outcome[1])
    outcome
  rescue TypeError
    [:ok, Unmarshalable.new(outcome[1].inspect), outcome[2]]
  end

  # A binding with no local variables besides the case's data; constants
  # resolve in JbuilderCases, so templates can name Person, Money...
  def self.fresh_binding
    binding
  end
end
