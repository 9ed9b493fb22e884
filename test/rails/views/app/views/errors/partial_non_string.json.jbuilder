json.partial! 42
