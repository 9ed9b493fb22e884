json.cache! Object.new do
  json.id 1
end
