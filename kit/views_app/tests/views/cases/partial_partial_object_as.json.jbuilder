json.partial! partial: @post.author, as: :author
