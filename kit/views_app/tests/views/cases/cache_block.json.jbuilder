json.cache! ["v1", @post], expires_in: 10.minutes do
  json.extract! @post, :id, :title, :published_at
  json.author @post.author, partial: "authors/author", as: :author
end
