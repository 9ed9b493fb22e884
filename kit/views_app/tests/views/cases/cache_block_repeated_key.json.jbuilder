json.meta do
  json.a 1
end
json.cache! ["v3", @post] do
  json.meta do
    json.b 2
  end
  json.list [1, 2]
end
json.meta do
  json.c 3
end
