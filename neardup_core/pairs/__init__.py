"""Finding similar pairs without comparing all pairs: the permuted-table Hamming index for
SimHash, LSH banding for MinHash, and the scores that candidates are kept by."""
