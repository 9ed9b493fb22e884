json.partial! partial: "shared/box", locals: { title: "options", count: 7 }
