json.partial! "comments/comment", collection: @empty, as: :comment
