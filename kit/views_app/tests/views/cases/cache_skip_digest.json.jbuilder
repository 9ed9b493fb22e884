json.cache! ["v10", @post], skip_digest: true do
  json.id @post.id
end
