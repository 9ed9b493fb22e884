json.email author.email
