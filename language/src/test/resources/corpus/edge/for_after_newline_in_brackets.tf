a = {
  for x in xs : x => x
}
b = [
  for x in xs : x
]
