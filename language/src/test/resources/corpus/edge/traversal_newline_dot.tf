a = var
  .x
