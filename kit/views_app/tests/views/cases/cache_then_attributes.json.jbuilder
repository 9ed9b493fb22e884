json.cache! ["v17", @post] do
  json.id @post.id
  json.title @post.title
end
json.keys json.attributes!.keys
