json.id 1
json.oops do
  json.x [1, 2
end
