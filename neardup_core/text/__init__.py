"""Text before hashing: normalisation (NFKC, width, case, whitespace), word and character
units for Latin and Chinese scripts (jieba through rjieba), and the shingles hashed from them."""
