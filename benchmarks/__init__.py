"""neardup's benchmarks: neardup against datasketch and simhash on a corpus with ground truth.

Run everything with ``make bench`` (``python -m benchmarks``); see benchmarks/README.md.
"""
