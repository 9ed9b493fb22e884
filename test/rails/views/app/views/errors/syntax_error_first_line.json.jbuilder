json.id(
