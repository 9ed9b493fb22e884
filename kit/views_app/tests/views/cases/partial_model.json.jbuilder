json.partial! @post
