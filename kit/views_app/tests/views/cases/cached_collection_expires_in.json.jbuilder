# ActionView 7.2 treats a Hash as true (8.0.5 and 8.1.3 pass expires_in on
# to write_multi): the entries are the gem's either way.
json.array! @posts_array.first(3), partial: "posts/post", as: :post, cached: { expires_in: 3600 }
