json.cache_root! ["root-ok", @post] do
  json.id @post.id
end
