json.id @post.no_such_method
