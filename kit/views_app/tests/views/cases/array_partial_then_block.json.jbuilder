json.array! @posts_array.first(2), partial: "posts/summary", as: :post
json.array! @authors do |author|
  json.name author.name
end
