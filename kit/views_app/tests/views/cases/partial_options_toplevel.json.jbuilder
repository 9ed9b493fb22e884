json.partial! partial: "shared/box", title: "top-level locals", extra: { "a" => 1 }
