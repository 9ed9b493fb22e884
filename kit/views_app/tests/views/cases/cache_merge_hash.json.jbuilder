json.cache! ["v18", @post] do
  json.id @post.id
  json.meta do
    json.a 1
  end
end
json.merge!({ "meta" => { "b" => 2 }, "extra" => [1] })
