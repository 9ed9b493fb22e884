json.cache! ["api", @posts.map(&:cache_key_with_version)] do
  json.array! @posts, partial: "posts/summary", as: :post
end
