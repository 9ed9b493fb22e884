json.array! @posts_array, partial: "errors/boom_on_third", as: :post, cached: true
