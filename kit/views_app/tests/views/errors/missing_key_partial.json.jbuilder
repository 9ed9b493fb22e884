json.author @post.author, partial: "nothing/author", as: :author
