# A record is a collection to Jbuilder when it responds to map and count,
# and ActiveRecord's respond_to? says yes for an attribute of that name (a
# select with an alias). Jetson answers natively for records without such
# attributes and asks Ruby otherwise.
json.plain Author.select(:id, :name, :email, :bio, :born_on, :score).first, partial: "authors/author", as: :author
json.only_map Author.select("authors.*, 1 AS map").first, partial: "authors/author", as: :author
json.only_count Author.select("authors.*, 2 AS count").first, partial: "authors/author", as: :author
json.partial_select Author.select(:id, :name).first, partial: "shared/names", as: :author
