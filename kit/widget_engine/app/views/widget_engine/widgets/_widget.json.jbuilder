json.extract! widget, :id, :name, :tags, :weight, :released_at, :notes
json.price! :price, widget.price_cents
json.url widget_url(widget.id, format: :json)
