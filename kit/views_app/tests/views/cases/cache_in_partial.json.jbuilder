json.array! @posts_array, partial: "cases/cached_summary", as: :post
