json.partial! "comments/comment", collection: @comments, as: :comment
