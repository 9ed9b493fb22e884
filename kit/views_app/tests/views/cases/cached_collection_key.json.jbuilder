json.id @post.id
json.comments @comments, partial: "comments/comment", as: :comment, cached: true
json.after 1
