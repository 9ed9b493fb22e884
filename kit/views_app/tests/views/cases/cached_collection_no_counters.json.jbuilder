# A cached collection whose partial reads no counter or iteration: its
# bytes are the same whichever of its items were hits.
json.array! @posts_array, partial: "posts/post", as: :post, cached: true
