json.badges do
  json.array! @badges, partial: "badges/badge", as: :badge
end
json.one do
  json.partial! @badges.last
end
