"""What neardup keeps on disk: the SQLite fingerprint cache, the results file (saved results
and the last scans' snapshots) and the start-up lookup tables."""
