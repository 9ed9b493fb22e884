json.array! @posts_array, partial: "nothing/here", as: :post
