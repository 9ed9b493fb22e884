json.array! @empty, partial: "posts/summary", as: :post, cached: true
