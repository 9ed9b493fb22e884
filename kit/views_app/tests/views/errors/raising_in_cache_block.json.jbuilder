json.cache! ["boom", @post] do
  json.id @post.id
  json.partial! "errors/boom", message: "in cache!"
end
