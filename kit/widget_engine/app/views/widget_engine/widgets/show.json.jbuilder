json.cache! ["widget", @widget] do
  json.partial! "widget_engine/widgets/widget", widget: @widget
end
json.label widget_label(@widget)
json.ignore_nil!
json.notes @widget.notes
json.details do
  json.key_format! :upcase
  json.extract! @widget, :weight, :tags
end
