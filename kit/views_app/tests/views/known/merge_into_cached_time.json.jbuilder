json.cache! ["known-1", @post] do
  json.published_at @post.published_at
end
json.published_at do
  json.year 2024
end
