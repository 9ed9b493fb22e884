json.array! @posts_array, partial: "posts/summary", as: :post, cached: true
