# frozen_string_literal: true

# The API documentation (YARD) of the methods Jetson defines in C
# (ext/jetson/): `bundle exec rake doc` reads it with the rest of lib/ (see
# .yardopts). Nothing requires this file; loaded, it would only reopen the
# classes the extension defines.
#
# Each class body starts and ends with a `nil` statement: YARD files the method
# directives between two statements under the class, but those of
# a body with no statement under the enclosing module.

module Jetson
  # @!method self.generate(obj, opts = nil)
  #   The JSON text of `obj`, with `JSON.generate`'s bytes (see
  #   docs/compatibility.md for the one difference, Float digits).
  #
  #   Hashes, Arrays, Strings, Symbols, Integers, Floats, nil, true and false
  #   are written natively; any other object through its `to_json(state)`, or
  #   `to_s` when it has none. Nothing outside {Jetson} is patched.
  #
  #   @example
  #     Jetson.generate({ "id" => 1, "tags" => [:a, :b] })  # => "{\"id\":1,\"tags\":[\"a\",\"b\"]}"
  #     Jetson.generate(doc, script_safe: true)
  #   @param obj [Object] the document
  #   @param opts [Hash, State, JSON::State, nil] the json gem's options (`indent`, `space`,
  #     `space_before`, `object_nl`, `array_nl`, `allow_nan`, `max_nesting`, `depth`,
  #     `ascii_only`, `script_safe`, `strict`, `as_json`, `allow_duplicate_key`, `sort_keys`,
  #     `buffer_initial_length`, `rfc8785`), as a Hash or keywords, or a State to take them from
  #   @return [String] UTF-8 JSON text
  #   @raise [GeneratorError] an object JSON cannot hold (NaN without `allow_nan`, invalid
  #     UTF-8, a type `strict` refuses, keys that collide under json 3's rules)
  #   @raise [NestingError] deeper than `max_nesting` (100 by default)
  #   @raise [ArgumentError] an unknown option under json 3's rules (see {JSON_RULES})

  # @!parse
  #   # How the loaded extension was compiled, for bug reports and for the
  #   # tests that check a build took its CPU's path (docs/platforms.md).
  #   #
  #   # @example
  #   #   Jetson::BUILD_INFO  # => {simd: "sse2+avx2", compiler: "gcc 12.2.0", plain_char: "signed", asserts: false, ...}
  #   # @return [Hash{Symbol => String, Boolean}] frozen: `simd:` the vector code strings are escaped with
  #   #   (`"sse2+avx2"`, the AVX2 loop running on this CPU; `"sse2"`; `"neon"`; `"none"`, built
  #   #   without: `JETSON_DISABLE_SIMD=1` or another architecture), `compiler:` its name and
  #   #   version, `plain_char:` `"signed"` or `"unsigned"` (arm64), `asserts:` whether the
  #   #   extension's internal invariant checks are compiled in (the sanitizer build's, or
  #   #   `JETSON_ASSERTS=1`), `fresh_pages:` how a large result's pages come in
  #   BUILD_INFO = {}.freeze

  # @!method self.pretty_generate(obj, opts = nil)
  #   The JSON text of `obj` laid out as `JSON.pretty_generate` lays it out
  #   (two-space indent, a space after each colon, a line per element), with
  #   its bytes.
  #   @param obj [Object] the document
  #   @param opts [Hash, State, nil] options that change the layout or anything else
  #     {Jetson.generate} takes; a State is used as it is
  #   @return [String] UTF-8 JSON text
  #   @raise [GeneratorError, NestingError] as {Jetson.generate}

  # Generation options with the json gem's names, defaults and errors
  # (JSON::State's API), reusable across calls. The accessors and
  # {#generate} are native.
  class State
    nil

    # @!method self.generate(obj, opts = nil, io = nil)
    #   One-off generation with `opts`, into `io` when one is given (what {Jetson.dump}
    #   calls).
    #   @param obj [Object] the document
    #   @param opts [Hash, State, nil] options as for {Jetson.generate}
    #   @param io [#write, nil] where to stream the document, in chunks
    #   @return [String, #write] the JSON text, or `io` once it holds the document

    # @!method generate(obj, io = nil)
    #   The JSON text of `obj` under this State's options; with `io`, the document
    #   is streamed into it in chunks and `io` (flushed) is returned.
    #   @example
    #     state = Jetson::State.new(indent: "\t", object_nl: "\n")
    #     state.generate({ "a" => 1 })  # => "{\n\t\"a\":1\n}"
    #   @param obj [Object] the document
    #   @param io [#write, nil] where to stream the document
    #   @return [String, #write] the JSON text, or `io`
    #   @raise [GeneratorError, NestingError] as {Jetson.generate}; the State's depth is
    #     unchanged after an error

    # @!method indent
    #   @return [String] the indent of each nesting level (`""`: none)
    # @!method indent=(value)
    #   @param value [String, nil] the indent of each nesting level
    #   @return [void]
    # @!method space
    #   @return [String] what follows each object key's colon
    # @!method space=(value)
    #   @param value [String, nil] what follows each object key's colon
    #   @return [void]
    # @!method space_before
    #   @return [String] what comes before each object key's colon
    # @!method space_before=(value)
    #   @param value [String, nil] what comes before each object key's colon
    #   @return [void]
    # @!method object_nl
    #   @return [String] what follows `{` and each object member
    # @!method object_nl=(value)
    #   @param value [String, nil] what follows `{` and each object member
    #   @return [void]
    # @!method array_nl
    #   @return [String] what follows `[` and each Array element
    # @!method array_nl=(value)
    #   @param value [String, nil] what follows `[` and each Array element
    #   @return [void]
    # @!method allow_nan?
    #   @return [Boolean] whether NaN and Infinity are written (as `NaN`, `Infinity`)
    #     instead of raising {GeneratorError}
    # @!method allow_nan=(value)
    #   @param value [Boolean]
    #   @return [void]
    # @!method ascii_only?
    #   @return [Boolean] whether every character past ASCII is written as a `\u` escape
    # @!method ascii_only=(value)
    #   @param value [Boolean]
    #   @return [void]
    # @!method script_safe?
    #   @return [Boolean] whether `/`, U+2028 and U+2029 are escaped, so that the JSON can
    #     sit in a `<script>` tag
    # @!method script_safe
    #   @return [Boolean] the same as {#script_safe?}
    # @!method script_safe=(value)
    #   @param value [Boolean]
    #   @return [void]
    # @!method strict?
    #   @return [Boolean] whether objects other than JSON's types raise {GeneratorError}
    #     instead of going through `to_json`
    # @!method strict
    #   @return [Boolean] the same as {#strict?}
    # @!method strict=(value)
    #   @param value [Boolean]
    #   @return [void]
    # @!method max_nesting
    #   @return [Integer] the deepest nesting allowed (100 by default; 0: no limit)
    # @!method max_nesting=(value)
    #   @param value [Integer, false, nil] the deepest nesting allowed; `false` or `nil`: no limit
    #   @return [void]
    # @!method check_circular?
    #   @return [Boolean] whether a nesting limit is set (cycles then raise {NestingError})
    # @!method depth
    #   @return [Integer] the nesting level the next document starts at (what a `to_json`
    #     handed this State sees)
    # @!method depth=(value)
    #   @param value [Integer] 0 or more
    #   @return [void]
    # @!method buffer_initial_length
    #   @return [Integer] the first size of the output buffer, a hint (1024 by default)
    # @!method buffer_initial_length=(value)
    #   @param value [Integer] a positive size; 0 or less keeps the current one
    #   @return [void]
    # @!method as_json
    #   @return [Proc, false] strict mode's conversion for objects that are not JSON's types
    # @!method as_json=(value)
    #   @param value [Proc, #to_proc] called with each such object; what it returns is written
    #   @return [void]
    # @!method sort_keys
    #   @return [Proc, false] how each Hash is ordered before it is written (`true` is
    #     stored as {Jetson::State::DEFAULT_SORT_KEYS})
    # @!method sort_keys=(value)
    #   @param value [Boolean, Proc] `true` to sort by key, a Proc to order each Hash
    #   @return [void]
    # @!method rfc8785?
    #   @return [Boolean] whether the JSON Canonicalization Scheme (RFC 8785) is written:
    #     keys in UTF-16 order, ECMAScript numbers, no whitespace
    # @!method rfc8785=(value)
    #   @param value [Boolean]
    #   @return [Boolean] the value set


    nil
  end

  # The json gem's `JSON::Coder` for writing (see lib/jetson/coder.rb); its
  # `dump` is native.
  class Coder
    nil

    # @!method dump(object, io = nil)
    #   The JSON text of `object` under the Coder's options, in strict mode, the block
    #   called for what JSON has no type for; with `io`, the document is streamed into it
    #   in chunks and `io` is returned.
    #   @example
    #     coder = Jetson::Coder.new { |object, _is_key| object.to_s }
    #     coder.dump({ "at" => 1..2 })  # => "{\"at\":\"1..2\"}"
    #   @param object [Object] the document
    #   @param io [#write, nil] where to stream the document
    #   @return [String, #write] the JSON text, or `io` once it holds the document
    #   @raise [GeneratorError] a value the block does not turn into a JSON type (or no
    #     block), NaN or an Infinity that neither `allow_nan: true` nor the block takes,
    #     invalid UTF-8, a key the block does not turn into a String
    #   @raise [NestingError] deeper than `max_nesting` (100 by default)

    # @!method generate(object, io = nil)
    #   {#dump}'s other name, as in `JSON::Coder`.
    #   @param object [Object] the document
    #   @param io [#write, nil] where to stream the document
    #   @return [String, #write] the JSON text, or `io`
    #   @raise [GeneratorError, NestingError] as {#dump}


    nil
  end

  # A JSON document written one piece at a time, into a String or streamed
  # into an io, for output too large or too irregular to build as Hashes and
  # Arrays first. Every value goes through the generator itself: the bytes are
  # those of {Jetson.generate} on the equivalent structure with the same
  # options. The reference, with the memory it takes while streaming, is
  # docs/writer.md.
  #
  # @example Into memory
  #   writer = Jetson::Writer.new
  #   writer.push_object do
  #     writer.push_value(42, "id")
  #     writer.push_array("tags") { writer.push_value("a") }
  #   end
  #   writer.to_s  # => "{\"id\":42,\"tags\":[\"a\"]}"
  # @example Into a file, in chunks of 12-16 KB
  #   File.open("out.json", "w") do |file|
  #     writer = Jetson::Writer.new(file)
  #     writer.push_array
  #     records.each { |record| writer.push_value(record) }
  #     writer.pop
  #   end
  class Writer
    nil

    # @!method initialize(io = nil, **options)
    #   @param io [#write, nil] where the document goes (in chunks, then `flush` if it has
    #     one); `nil`: into memory, read with {#to_s}
    #   @param options [Hash] the options of {Jetson.generate}, except `sort_keys` and
    #     `rfc8785` (a key is written when it is pushed)
    #   @raise [TypeError] an io without `write`
    #   @raise [ArgumentError] `sort_keys`, `rfc8785`, or an unknown option under json 3's rules

    # @!method push_object(key = nil)
    #   Opens an object. With a block, yields the writer and closes the object when
    #   the block returns; without one, close it with {#pop}.
    #   @param key [String, Symbol, Object, nil] its key, inside an object (or set with
    #     {#push_key}); none in an Array or at the top level
    #   @yieldparam writer [Writer] self
    #   @return [self]
    #   @raise [WriterError] out of place (a missing or unexpected key, a second top-level value)
    #   @raise [NestingError] deeper than `max_nesting`

    # @!method push_array(key = nil)
    #   Opens an Array, as {#push_object} opens an object.
    #   @param key [String, Symbol, Object, nil] its key, inside an object
    #   @yieldparam writer [Writer] self
    #   @return [self]
    #   @raise [WriterError, NestingError] as {#push_object}

    # @!method push_key(key)
    #   Sets the key of the next value or container of the innermost object.
    #   @param key [String, Symbol, Object] converted and escaped as Hash keys are
    #   @return [self]
    #   @raise [TypeError] `nil`
    #   @raise [WriterError] outside an object, or a key already waiting for its value

    # @!method push_value(value, key = nil)
    #   Writes any value as {Jetson.generate} would. A value that raises leaves the
    #   writer as it was before the call.
    #   @param value [Object]
    #   @param key [String, Symbol, Object, nil] its key, inside an object
    #   @return [self]
    #   @raise [WriterError] out of place
    #   @raise [GeneratorError, NestingError] as {Jetson.generate}

    # @!method push_json(json, key = nil)
    #   Pastes already-encoded JSON as it is (never validated).
    #   @param json [String]
    #   @param key [String, Symbol, Object, nil] its key, inside an object
    #   @return [self]
    #   @raise [WriterError] out of place

    # @!method pop
    #   Closes the innermost open container. Closing the top-level one completes the
    #   document: with an io, the rest is written and the io flushed.
    #   @return [self]
    #   @raise [WriterError] nothing open, or a key waiting for its value

    # @!method pop_all
    #   Closes every open container.
    #   @return [self]
    #   @raise [WriterError] a key waiting for its value

    # @!method to_s
    #   @return [String] everything written so far (the document, once complete)
    #   @raise [WriterError] the writer has an io: the output is there

    # @!method flush
    #   Hands the pending bytes to the io and calls its `flush`, if it has one.
    #   Does nothing without an io.
    #   @return [self]


    nil
  end

  class Builder < ::BasicObject
    nil

    # @!method set!(key, value = BLANK, *attributes, &block)
    #   Sets `key`: to `value`; to an object built by the block; to an Array
    #   built by the block for each element of `value` (a collection); or to the
    #   named `attributes` of `value` (or of each element). `json.name value` is
    #   the same call through `method_missing`, for any name.
    #   @example
    #     json.set! :author do
    #       json.name "Ada"
    #     end
    #     json.comments post.comments, :id, :body
    #   @param key [String, Symbol] formatted by the key format in force
    #   @return [nil]
    #   @raise [NullError] after {#nil!}
    #   @raise [ArrayError] inside an Array (after {#child!} or {#array!})

    # @!method array!(collection = [], *attributes, &block)
    #   Makes the current node an Array: of the block's object for each element,
    #   of each element's `attributes`, or of the elements themselves.
    #   @example
    #     json.array! posts do |post|
    #       json.id post.id
    #     end
    #     json.array! posts, :id, :title
    #   @param collection [Enumerable, nil]
    #   @return [nil]

    # @!method extract!(object, *attributes)
    #   Sets each attribute of `object` (a Hash's keys, or an object's readers)
    #   as a key. ActiveRecord attributes are read from the record's attribute
    #   set.
    #   @param object [Hash, Object]
    #   @param attributes [Array<Symbol, String>]
    #   @return [nil]

    # @!method call(object, *attributes, &block)
    #   `json.(object, :a, :b)`: {#extract!} of `object`, or, given a block or a
    #   collection, {#array!}.
    #   @return [nil]

    # @!method child!
    #   Makes the current node an Array (keys set before are dropped) and appends
    #   the object the block builds, even an empty one.
    #   @yield builds the element
    #   @return [nil]

    # @!method nil!
    #   Makes the current node `null`; adding a key afterwards raises `NullError`.
    #   @return [nil]

    # @!method null!
    #   The same as {#nil!}.
    #   @return [nil]

    # @!method attributes!
    #   The document as Ruby objects, as Jbuilder holds it: a Hash, an Array,
    #   `nil`, or {Jetson::Builder::Blank} when nothing is set. Later calls change the object handed
    #   out (the document is that object from then on).
    #   @return [Hash, Array, nil, Blank]

    # @!method merge!(object)
    #   Merges a Hash's pairs (keys formatted), an Array's elements, or another
    #   builder's document into the current node.
    #   @param object [Hash, Array, Builder]
    #   @return [nil]
    #   @raise [MergeError] values that do not merge (a Hash into an Array...)


    nil

    # The `partial!` of {JbuilderTemplate}, which includes this module.
    module TemplatePartials
      nil

      # @!method partial!(*args)
      #   Renders a partial into this document, as the jbuilder gem's partial!
      #   does: a name with locals (as keywords or `locals:`), options
      #   (`partial:`, `collection:`, `as:`, `cached:`), or a model (the
      #   partial its `to_partial_path` names). A name with locals runs the
      #   partial's compiled method from a plan made once per render.
      #   @example
      #     json.partial! "comments/comments", comments: @message.comments
      #     json.partial! partial: "posts/post", collection: @posts, as: :post
      #     json.partial! @post
      #   @return [nil]

      nil
    end
  end
end
