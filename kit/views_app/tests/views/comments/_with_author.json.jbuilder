json.(comment, :id, :body)
json.partial! "authors/author", author: comment.author
