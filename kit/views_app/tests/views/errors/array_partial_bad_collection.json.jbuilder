json.array! 42, partial: "posts/summary", as: :post
