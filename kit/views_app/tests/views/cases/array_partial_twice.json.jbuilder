json.array! @posts_array.first(2), partial: "posts/summary", as: :post
json.array! @posts_array.last(2), partial: "posts/summary", as: :post
