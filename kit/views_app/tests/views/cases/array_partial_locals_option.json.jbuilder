json.array! @posts_array.first(2), partial: "posts/summary", as: :post, locals: { show_body: true }
