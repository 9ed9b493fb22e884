json.array! @counting, partial: "posts/summary", as: :post
