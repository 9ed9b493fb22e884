json.title "before"
json.partial! "nothing/here"
