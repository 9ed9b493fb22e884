json.partial! "shared/box", locals: { title: "nested <locals>", extra: [1, 2] }, count: 99
