json.cache_root! ["boom-root", @post] do
  json.id @post.id
  raise "no root for you"
end
