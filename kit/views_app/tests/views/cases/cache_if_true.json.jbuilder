json.cache_if! true, ["v11", @post] do
  json.id @post.id
end
