json.key_format! :upcase
json.deep_format_keys!
json.meta({ "inner_key" => { "deep" => [{ "k" => 1 }] } })
json.partial! "shared/box", title: "deep", extra: { "snake_key" => 1 }
json.list @posts_array.first(2), partial: "posts/summary", as: :post
