json.first_post @post, partial: "posts/summary", as: :post, post_counter: 41, post_iteration: nil, show_body: true
