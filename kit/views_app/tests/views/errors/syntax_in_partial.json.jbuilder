json.partial! "errors/syntax"
