json.posts do
  @returned = json.array!(@posts_array.first(2)) { |post| json.id post.id }
end
json.returned @returned.class.name
