json.status "ok"
json.cheapest_price do
  json.price! :lowest, @widgets.map(&:price_cents).min, "USD"
end
json.widget_names @widgets.map(&:name)
