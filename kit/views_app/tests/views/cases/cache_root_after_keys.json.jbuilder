json.first 1
json.cache_root! ["v14", @post] do
  json.id @post.id
end
