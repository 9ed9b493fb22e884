json.array! @posts_array.first(4) do |post|
  json.partial! "posts/summary", post: post, post_counter: 0, post_iteration: nil
  json.extra true
end
