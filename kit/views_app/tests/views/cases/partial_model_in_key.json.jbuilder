json.post do
  json.partial! @other_post
end
json.badge do
  json.partial! @badges.first
end
