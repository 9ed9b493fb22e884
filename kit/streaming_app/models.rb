# frozen_string_literal: true

# Models of Kit::StreamingApp (kit/streaming_app.rb).
class Order < ActiveRecord::Base
  def code = "O-#{id}"
end

# The same rows in a table of their own, which a fault test drops half-way.
class FaultOrder < ActiveRecord::Base
  self.table_name = "fault_orders"
end
