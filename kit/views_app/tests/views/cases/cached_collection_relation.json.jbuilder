json.array! @posts, partial: "posts/full", as: :post, cached: true
