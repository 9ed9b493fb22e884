json.meta do
  json.merge! @meta
end
json.data @orders, partial: "orders/order", as: :order
