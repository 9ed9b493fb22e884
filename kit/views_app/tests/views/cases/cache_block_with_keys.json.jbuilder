json.before "set before"
json.title "overwritten by the cached title"
json.cache! ["v2", @post] do
  json.title @post.title
  json.comments @posts_array[6].comments, partial: "comments/comment", as: :comment
end
json.after "set after"
json.title "and overwritten again"
