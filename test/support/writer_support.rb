# frozen_string_literal: true

require "stringio"

# The Jetson::Writer tests' helpers (writer_test.rb, writer_io_test.rb,
# writer_random_documents_test.rb, writer_gc_test.rb): the ios they write
# into, assertions against both generators, a call's outcome as value or
# error, and Walker, which writes a Ruby structure through a writer as an
# application would.
module WriterSupport
  PRETTY = { indent: "  ", space: " ", object_nl: "\n", array_nl: "\n" }.freeze

  class Boom < StandardError; end

  # Records every write and flush it gets.
  class RecordingIO < StringIO
    attr_reader :writes, :flushes

    def initialize
      super(+"")
      @writes = []
      @flushes = 0
    end

    def write(*chunks)
      @writes.concat(chunks.map(&:dup))
      super
    end

    def flush
      @flushes += 1
      super
    end
  end

  # Only #write: no #flush.
  class WriteOnly
    attr_reader :chunks

    def initialize
      @chunks = []
    end

    def write(str)
      @chunks << str
      str.bytesize
    end
  end

  def writer(io = nil, **opts)
    Jetson::Writer.new(io, **opts)
  end

  # Runs the block on a fresh writer and checks its output against both
  # generators on `obj`.
  def assert_writes(obj, opts = {})
    w = writer(**opts)
    yield w
    expected = Jetson.generate(obj, opts)
    assert_equal expected, w.to_s, "Jetson.generate(#{obj.inspect}, #{opts.inspect})"
    assert_equal JSON.generate(obj, opts), w.to_s, "JSON.generate(#{obj.inspect}, #{opts.inspect})"
    assert_equal Encoding::UTF_8, w.to_s.encoding
    w
  end

  def assert_writer_error(pattern, &block)
    error = assert_raises(Jetson::WriterError, &block)
    assert_match pattern, error.message
    error
  end

  def quietly
    original = $stderr
    $stderr = StringIO.new
    yield
  ensure
    $stderr = original
  end

  NO_KEY = Object.new.freeze

  # Drives a writer through a document the way an application would: plain
  # Hashes and Arrays become containers (opened with or without a block, the
  # key passed along or set with push_key, String and Symbol keys swapped),
  # everything else is pushed as a value or, for plain scalars, as JSON.
  class Walker
    def initialize(writer, rng, opts)
      @w = writer
      @rng = rng
      @opts = opts
      @max_nesting = opts.fetch(:max_nesting, 100)
      @depth = opts[:depth] || 0
    end

    def write(obj, key = NO_KEY)
      container = walkable_hash?(obj) || (Array === obj && obj.instance_of?(Array)) # rubocop:disable Style/CaseEquality
      # At the nesting limit, the generator writes the key before it finds
      # the container too deep: push_key keeps that order.
      at_limit = container && @max_nesting && @max_nesting != 0 && @depth + 1 > @max_nesting
      if key != NO_KEY && (at_limit || @rng.rand < 0.3)
        @w.push_key(key)
        key = NO_KEY
      end
      args = key == NO_KEY ? [] : [key]
      if container
        open(obj, args)
      elsif plain_scalar?(obj) && @rng.rand < 0.2
        @w.push_json(Jetson.generate(obj, @opts), *args)
      else
        @w.push_value(obj, *args)
      end
    end

    private

    def open(obj, args)
      method = obj.is_a?(Hash) ? :push_object : :push_array
      if @rng.rand < 0.5
        @w.public_send(method, *args) { children(obj) }
      else
        @w.public_send(method, *args)
        children(obj)
        @w.pop
      end
    end

    def children(obj)
      @depth += 1
      if obj.is_a?(Hash)
        obj.each { |k, v| write(v, writer_key(k)) }
      else
        obj.each { |v| write(v) }
      end
    ensure
      @depth -= 1
    end

    def writer_key(key)
      return key unless @rng.rand < 0.4 && (Symbol === key || String === key) # rubocop:disable Style/CaseEquality

      case key
      when Symbol then key.to_s
      # A BINARY key with high bytes stays a String: as a Symbol it would be
      # a different key for the generator (it no longer reinterprets it as UTF-8).
      when String
        key.instance_of?(String) && key.valid_encoding? && (key.ascii_only? || key.encoding == Encoding::UTF_8) ? key.to_sym : key
      else key
      end
    end

    # nil means "no key" to the writer, so such Hashes go in whole.
    def walkable_hash?(obj)
      Hash === obj && obj.instance_of?(Hash) && !obj.key?(nil) # rubocop:disable Style/CaseEquality
    end

    def plain_scalar?(obj)
      case obj
      when nil, true, false, Integer then true
      when Float then obj.finite?
      when String then obj.instance_of?(String) && obj.encoding == Encoding::UTF_8 && obj.valid_encoding?
      else false
      end
    end
  end

  def write_structure(writer, obj, seed: 1)
    Walker.new(writer, Random.new(seed), {}).write(obj)
    writer
  end

  def outcome
    [yield, nil]
  rescue StandardError, SystemStackError => e
    [nil, [e.class.name.sub(/\A(?:JSON|Jetson)::/, ""), e.message]]
  end
end
