raise KeyError, "third element" if post_counter == 2
json.id post.id
