json.array! @badges, partial: "badges/badge", as: :badge, cached: true
