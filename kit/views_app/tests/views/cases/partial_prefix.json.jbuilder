json.box do
  json.partial! "box", title: "found under the controller's prefix"
end
