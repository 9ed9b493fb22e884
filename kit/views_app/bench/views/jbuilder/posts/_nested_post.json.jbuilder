json.extract! post, :id, :title, :body, :published_at, :created_at, :updated_at
json.url post_url(post, format: :json)
json.author post.author, partial: "authors/author", as: :author
json.comments post.comments, partial: "comments/comment", as: :comment
