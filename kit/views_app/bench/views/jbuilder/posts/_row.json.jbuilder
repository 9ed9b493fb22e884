# A row as an app writes one (bench/views.rb's "app" endpoint): scalars,
# formatted values, nested objects, a small collection with a block and
# conditionals; 34 DSL calls per post (the 3 latest comments' 4 each).
# OwnController#row_values (kit/views_app/bench/controllers.rb) computes the
# same values and builds nothing: the templates' own Ruby.
author = post.author
comments = post.comments
json.id post.id
json.type "post"
json.title post.title
json.excerpt post.body.truncate(80, separator: " ")
json.word_count post.body.split.size
json.published post.published_at.present?
json.published_on post.published_at.strftime("%b %-d, %Y")
json.published_at post.published_at
json.updated_at post.updated_at
json.url post_url(post, format: :json)
json.author do
  json.id author.id
  json.name author.name
  json.initials author.name.split.map { |word| word[0] }.join.upcase
  json.email author.email if author.email
end
json.comments_count comments.size
json.latest_comments comments.last(3) do |comment|
  json.id comment.id
  json.excerpt comment.body.truncate(40)
  json.by_author comment.author_id == author.id
  json.posted_at comment.created_at
end
json.popular true if comments.size > 5
json.stats do
  json.reading_minutes((post.body.length / 1000.0).ceil)
  json.edited post.updated_at > post.created_at
end
json.tags post.title.split.select { |word| word.length > 4 }.first(3)
