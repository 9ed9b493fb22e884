json.cache! ["v5-array", @posts_array.size] do
  json.array! @posts_array.first(3), partial: "posts/summary", as: :post
end
