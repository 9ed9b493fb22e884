json.author @post.author, partial: "authors/author", as: :author
json.editor nil, partial: "authors/author", as: :author
json.title @post.title
