json.here "cases/_box"
json.title title
