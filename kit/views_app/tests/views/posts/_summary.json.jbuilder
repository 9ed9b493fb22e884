json.id post.id
json.title post.title
json.body post.body if local_assigns[:show_body]
json.position post_counter
json.first post_iteration.first?
json.last post_iteration.last?
