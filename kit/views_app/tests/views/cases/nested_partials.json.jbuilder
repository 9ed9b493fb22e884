json.array! @posts_array, partial: "posts/full", as: :post
