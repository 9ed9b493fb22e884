json.partial! "shared/box", title: "formats", formats: [:json]
