json.array! @posts, partial: "posts/summary", as: :post
