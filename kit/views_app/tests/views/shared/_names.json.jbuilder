json.extract! author, :id, :name
