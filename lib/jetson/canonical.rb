# frozen_string_literal: true

module Jetson
  class << self
    private

    # rfc8785's object for what the native path (ext/jetson/json/canonical.c)
    # hands over: keys that are not plain UTF-8 Strings or Symbols, strict
    # mode's as_json (given as `as_json`), and keys that collide. Returns a new
    # Hash of String keys in UTF-16 code unit order, or raises what json 3.1
    # raises, in the same order: a key's conversion, then the first key that
    # collides, then a key that cannot be put in UTF-16.
    def rfc8785_hash(hash, as_json)
      named = {}
      hash.each { |key, value| named[as_json ? rfc8785_key(key, as_json) : key.to_s] = value }
      rfc8785_collision(hash, as_json) if named.size < hash.size
      named.sort_by { |name, _| name.encode(Encoding::UTF_16) }.to_h
    end

    # A key as strict mode's as_json leaves it (json 3.1's rules for keys).
    def rfc8785_key(key, as_json)
      called = false
      unless key.is_a?(String) || key.is_a?(Symbol)
        key = as_json.call(key, true)
        called = true
      end
      key = key.to_s if key.is_a?(Symbol)
      raise GeneratorError.new("#{key.class} not allowed as object key in JSON", key) unless key.is_a?(String)
      return key if rfc8785_text?(key)
      raise GeneratorError.new("source sequence is illegal/malformed utf-8", key) if called

      key = as_json.call(key, true)
      raise GeneratorError.new("#{key.class} not allowed as object key in JSON", key) unless key.is_a?(String)
      raise GeneratorError.new("source sequence is illegal/malformed utf-8", key) unless rfc8785_text?(key)

      key
    end

    def rfc8785_text?(string)
      string.ascii_only? || (string.encoding == Encoding::UTF_8 && string.valid_encoding?)
    end

    # json 3.1 names the first key met twice, each key taken through strict
    # mode's as_json, or through a missing one (nil, or false in strict mode)
    # when it is not a plain String or Symbol: that is a NoMethodError there,
    # and here.
    def rfc8785_collision(hash, as_json)
      seen = {}
      hash.each_key do |key|
        key = rfc8785_key(key, as_json)
        raise GeneratorError.new("detected duplicate key #{key.inspect}", key) if seen[key]

        seen[key] = true
      end
    end
  end
end
