json.extract! author, :id, :name, :email
