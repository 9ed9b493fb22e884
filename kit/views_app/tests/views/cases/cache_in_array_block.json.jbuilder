json.array! @posts_array do |post|
  json.cache! ["v7", post] do
    json.id post.id
    json.title post.title
  end
  json.draft post.draft
end
