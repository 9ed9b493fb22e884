json.cache_if! false, ["v12", @post] do
  json.id @post.id
end
