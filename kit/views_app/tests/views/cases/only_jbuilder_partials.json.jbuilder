json.partial! "only_jbuilder"
