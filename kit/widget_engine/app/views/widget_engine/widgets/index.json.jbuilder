json.count @widgets.size
json.widgets @widgets, partial: "widget_engine/widgets/widget", as: :widget
json.cached do
  json.array! @widgets, partial: "widget_engine/widgets/widget", as: :widget, cached: true
end
