json.extract! post, :id, :title, :published_at
json.author post.author, partial: "authors/author", as: :author
json.comments post.comments, partial: "comments/comment", as: :comment
