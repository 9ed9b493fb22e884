json.array! @posts_array.first(3), partial: "shared/strict", as: :post
