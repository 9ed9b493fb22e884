json.array! @posts_array.first(3) + @posts_array.first(2), partial: "posts/summary", as: :post, cached: true
