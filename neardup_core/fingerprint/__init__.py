"""What a document is reduced to: 64-bit weighted SimHash and MinHash signatures of its
shingles (seeded, stable hashes), and the boilerplate lines left out before fingerprinting."""
