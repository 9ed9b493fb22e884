json.cache! ["v4-blank", @post] do
end
json.after 1
