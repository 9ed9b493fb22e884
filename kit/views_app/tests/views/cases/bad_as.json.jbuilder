json.array! @posts_array, partial: "posts/summary", as: :"not valid"
