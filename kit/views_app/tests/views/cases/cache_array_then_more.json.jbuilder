json.cache! ["v6-array", 1] do
  json.array! [1, 2, 3]
end
json.cache! ["v6-array", 2] do
  json.array! [4]
end
