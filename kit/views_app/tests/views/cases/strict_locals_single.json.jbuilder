json.partial! "shared/strict", post: @post, post_counter: 5, post_iteration: nil, tag: "<t>"
