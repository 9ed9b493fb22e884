json.partial! "posts/post", post: @post
