json.posts @posts_array do |post|
  json.id post.id
  json.partial! "authors/author", author: post.author
  json.comments post.comments, partial: "comments/with_author", as: :comment
end
