json.cache! ["v9-outer", @post] do
  json.outer true
  json.cache! ["v9-inner", @post] do
    json.inner @post.title
  end
end
