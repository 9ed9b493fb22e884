json.partial! "posts/summary", collection: @posts_array, as: :post, spacer_template: "spacer"
