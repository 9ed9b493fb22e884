json.cache! ["v8", post] do
  json.id post.id
  json.author post.author, partial: "authors/author", as: :author
end
json.counter post_counter
