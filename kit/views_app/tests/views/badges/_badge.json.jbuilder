json.id badge.id
json.label badge.label
