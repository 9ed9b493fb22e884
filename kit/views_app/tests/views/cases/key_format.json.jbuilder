json.key_format! camelize: :lower
json.post_title @post.title
json.array_of_posts @posts_array.first(2), partial: "posts/summary", as: :post
json.nested_box do
  json.partial! "shared/box", title: "camel", extra: { "snake_key" => 1 }
end
