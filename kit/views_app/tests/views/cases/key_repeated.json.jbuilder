json.author @post.author, partial: "authors/author", as: :author
json.title "between"
json.author @other_post.author, partial: "authors/author", as: :author
