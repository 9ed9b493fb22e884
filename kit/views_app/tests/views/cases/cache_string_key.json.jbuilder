json.cache! "a plain key", expires_in: 60 do
  json.value "from a string key"
end
