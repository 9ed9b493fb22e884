title = "punned"
json.partial! "shared/box", title:
