# Elements that build nothing (ignore_nil! and a nil email) are cached
# too, and are hits on the next request.
json.ignore_nil!
json.array! @authors, partial: "cases/email_or_nothing", as: :author, cached: true
