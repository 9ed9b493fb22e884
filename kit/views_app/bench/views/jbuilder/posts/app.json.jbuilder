json.array! @posts, partial: "posts/row", as: :post
