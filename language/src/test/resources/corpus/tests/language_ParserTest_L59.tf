# hash
// slashes
/* block
   comment */ a = 1 /* inline */
b = 2 # trailing
