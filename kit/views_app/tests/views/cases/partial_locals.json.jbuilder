json.partial! "shared/box", title: @post.title, count: 3
