json.cache! ["known-2", @post] do
  json.published_at @post.published_at
  json.rating @post.rating
end
json.classes json.attributes!.values.map { |value| value.class.name }
