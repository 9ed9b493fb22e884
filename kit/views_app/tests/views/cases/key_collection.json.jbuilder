json.id @post.id
json.comments @posts_array[5].comments, partial: "comments/comment", as: :comment
json.none @empty, partial: "comments/comment", as: :comment
