json.partial! "errors/boom", message: "single"
