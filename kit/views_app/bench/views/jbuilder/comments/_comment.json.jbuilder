json.extract! comment, :id, :body, :created_at
json.author comment.author, partial: "authors/author", as: :author
