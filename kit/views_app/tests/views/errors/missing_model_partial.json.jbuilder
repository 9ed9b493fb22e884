json.partial! Comment.new(id: 1)
