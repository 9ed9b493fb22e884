json.array! @posts_array, partial: "posts/summary", as: :post, show_body: true
