json.title title
json.count local_assigns.fetch(:count, 0)
json.extra local_assigns[:extra]
