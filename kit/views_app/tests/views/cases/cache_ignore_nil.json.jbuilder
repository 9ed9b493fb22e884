json.ignore_nil!
json.cache! ["v16", @post] do
  json.nothing nil
  json.something 1
end
