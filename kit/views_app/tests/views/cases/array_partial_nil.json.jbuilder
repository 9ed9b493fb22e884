json.array! nil, partial: "posts/summary", as: :post
