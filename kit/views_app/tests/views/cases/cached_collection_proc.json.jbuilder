json.array! @posts_array, partial: "posts/summary", as: :post, cached: ->(post) { [post, "v19"] }
