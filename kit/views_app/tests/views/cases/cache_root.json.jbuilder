json.cache_root! ["v13", @post] do
  json.id @post.id
  json.comments @posts_array[5].comments, partial: "comments/comment", as: :comment
end
