json.array! [1, 2], partial: "erb_only", as: :value
