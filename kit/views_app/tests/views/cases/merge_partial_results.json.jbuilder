json.merge!({ "a" => 1 })
json.partial! "shared/box", title: "merged"
json.merge!({ "title" => "replaced", "b" => 2 })
