json.ignore_nil!
json.array! @authors, partial: "authors/author", as: :author
