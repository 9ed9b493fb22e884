json.partial! "authors/author", object: @post.author
