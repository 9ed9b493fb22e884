# A view whose top-level collection streams under `render json_stream: true`
# (and renders whole otherwise): key settings made before it apply to the
# partial's keys, a relation nested in a block renders whole, keys after it
# come after it.
json.key_format! camelize: :lower
json.ignore_nil!
json.meta_info do
  json.total_count @orders.count
  json.title "Orders <export> & \u2028 report"
  json.first_two @orders.limit(2), partial: "orders/order", as: :order
end
json.data_rows @orders, partial: "orders/order", as: :order
json.generated_at Time.utc(2024, 5, 1, 12, 0, 0.5r)
