json.author do
  json.extra "before"
end
json.author @post.author, partial: "authors/author", as: :author
