json.array! @orders, partial: "orders/order", as: :order
