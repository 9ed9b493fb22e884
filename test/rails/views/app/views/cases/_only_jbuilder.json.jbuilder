json.from "jbuilder"
