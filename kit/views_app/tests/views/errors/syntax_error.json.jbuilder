json.id @post.id
json.title(@post.title
