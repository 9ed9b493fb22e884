json.array! @posts, partial: "posts/post", as: :post
