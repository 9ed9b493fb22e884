# An order as the streaming tests render it; raises at the order whose id is
# the request's raise_at (a partial that fails at element 1 or 50,000).
raise ArgumentError, "partial raised at order #{order.id}" if order.id == params[:raise_at].to_i

json.extract! order, :id, :number, :total, :placed_at, :status
json.note order.note
json.flags [order.id.even?, order.note.nil?]
