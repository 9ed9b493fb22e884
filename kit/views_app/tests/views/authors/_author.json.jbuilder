json.extract! author, :id, :name, :email, :bio, :born_on, :score
