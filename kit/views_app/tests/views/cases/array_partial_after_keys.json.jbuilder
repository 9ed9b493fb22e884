json.title "keys first"
json.array! @posts_array.first(2), partial: "posts/summary", as: :post
