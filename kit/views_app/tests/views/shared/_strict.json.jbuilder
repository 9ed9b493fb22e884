# locals: (post:, post_counter:, post_iteration:, tag: "none")
json.id post.id
json.tag tag
json.n post_counter
