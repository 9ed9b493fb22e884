json.key_format! camelize: :lower
json.deep_format_keys!
json.cache! ["v15", @post] do
  json.post_title @post.title
  json.inner_hash({ "snake_case" => 1 })
end
json.after_cache 1
