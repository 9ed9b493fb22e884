json.array! @posts_array, partial: "posts/summary", as: :post, layout: "some_layout"
