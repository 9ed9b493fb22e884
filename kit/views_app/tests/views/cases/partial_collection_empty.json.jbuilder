json.none do
  json.partial! "comments/comment", collection: @empty, as: :comment
end
json.nothing do
  json.partial! "comments/comment", collection: nil, as: :comment
end
json.after 1
