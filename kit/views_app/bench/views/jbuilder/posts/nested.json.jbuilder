json.array! @posts, partial: "posts/nested_post", as: :post
