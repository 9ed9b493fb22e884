json.id comment.id
json.body comment.body
json.mood comment.mood
json.by comment.author.name
json.index comment_counter
json.created_at comment.created_at
