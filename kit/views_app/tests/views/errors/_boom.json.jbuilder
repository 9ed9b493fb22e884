json.ok true
raise ArgumentError, "boom: #{message}"
