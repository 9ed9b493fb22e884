json.before nil
json.authors do
  json.array! @authors do |author|
    json.partial! "authors/author", author: author
  end
end
json.partial! "shared/box", title: nil
