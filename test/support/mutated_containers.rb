# frozen_string_literal: true

# Documents in which an object changes the container it sits in while it is
# being written (in its to_json or as_json): the faults tests of json mode
# and of Rails mode. The block makes the object from the `how` and the
# container.
module MutatedContainers
  module_function

  # [how, document] for each how: an Array of `size` Strings holding the
  # object at index 3, in a Hash twice (the second time after the change).
  def arrays(hows, size)
    hows.map do |how|
      array = Array.new(size) { |i| "item #{i}" }
      array.insert(3, yield(how, array))
      [how, { "list" => array, "after" => array }]
    end
  end

  # [how, document] for each how: a Hash of 20 keys (named by `key` from a
  # String) with the object under "m" and one key after it, in an Array
  # twice.
  def hashes(hows, key: ->(name) { name })
    hows.map do |how|
      hash = Array.new(20) { |i| [key.call("k#{i}"), i] }.to_h
      hash[key.call("m")] = yield(how, hash)
      hash[key.call("z")] = 1
      [how, [hash, hash]]
    end
  end
end
