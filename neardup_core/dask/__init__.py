"""The same scan on a Dask cluster: the client walks, workers read and fingerprint, the pair
search is the paper's batch mode over shuffled key columns. Needs ``neardup[dask]``."""
