json.first do
  json.cache! ["ok", @post] do
    json.id @post.id
  end
end
json.list @posts_array.first(3), partial: "posts/summary", as: :post, cached: true
json.cache! ["ok-2", @post] do
  json.title @post.title
end
