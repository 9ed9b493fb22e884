# An Author with "map" and "count" attributes responds to both: Jbuilder
# renders it as a collection of partials, which its each does not allow.
json.author Author.select("authors.*, 1 AS map, 2 AS count").first, partial: "authors/author", as: :author
