# The block shortens the collection it is iterating: both builders stop
# where Ruby's iteration stops.
list = @posts_array.dup
json.posts list do |post|
  list.pop
  json.id post.id
end
json.remaining list.size
