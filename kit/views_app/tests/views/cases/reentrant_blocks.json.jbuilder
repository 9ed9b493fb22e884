# Blocks that build other documents while this one is being built: a second
# builder, Jbuilder.encode, and ActiveSupport's encoder through to_json.
json.badges @badges do |badge|
  json.label badge.label
  json.inner(Jbuilder.new { |inner| inner.id badge.id; inner.nested Jbuilder.new { |deeper| deeper.ok true }.attributes! }.attributes!)
  json.text(Jbuilder.encode { |inner| inner.at @post.published_at })
  json.post_json @post.to_json(only: %i[id title])
end
