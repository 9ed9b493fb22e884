json.partial! partial: "posts/summary", collection: @posts, as: :post, show_body: true
