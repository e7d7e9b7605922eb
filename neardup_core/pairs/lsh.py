"""MinHash LSH banding: candidate pairs of documents whose Jaccard similarity may pass a threshold.

A signature of ``bands * rows`` MinHash values is cut into ``bands`` bands of ``rows`` values.
Two documents with Jaccard similarity s agree on one value with probability s, on a whole band
with probability ``s**rows``, and so share at least one band -- become a *candidate pair* --
with probability ``1 - (1 - s**rows)**bands``: an S-curve that :func:`optimal_params` places on
the threshold. Candidates are then scored exactly from the signatures by the caller.

A band is reduced to one 64-bit value by a fixed-seed hash of its rows (a sum of the rows times
odd 64-bit constants, then splitmix64's finaliser), all documents at once. The band values are
sorted with the document index packed into their low bits, so each run of equal values is one
bucket with its members in index order. Two different bands landing on the same value add a
harmless extra candidate (about n**2 / 2**(65 - log2 n) per band), never a missed one.

Crowded buckets. Boilerplate shared by thousands of documents (a licence, a letterhead, empty
templates) puts them all in one bucket, and all its pairs would be quadratic. A bucket with more
than ``max_bucket`` members is *truncated*: each member is paired only with the next
``bucket_window`` members in index order (or in the order of ``chain_keys``), which keeps the
bucket connected (a chain) at a cost linear in its size, and it is counted in the returned
``truncated_buckets`` so the caller can say so. With ``hubs``, every member of a truncated bucket
is also paired with the bucket's lowest-hub member (a star): the scan passes its reference
ranks, so in a folder of thousands of near-copies of one template the file the group keeps is
paired with each copy, and groups that need every member linked to the reference (STRICT,
large COHESIVE ones) stay whole. Documents that are truly near-duplicates share many bands, so
losing a pair needs every one of their shared bands to be crowded; what can go missing is a
weak pair whose only common band is a crowded one.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Hashable

import numpy as np

from neardup_core.arrays import lowest_in_runs
from neardup_core.tables import cached_arrays

#: Members each one is paired with in a truncated (crowded) bucket.
DEFAULT_BUCKET_WINDOW = 4
#: Pair codes held from several bands before they are merged (bounds memory: a pair of alike
#: documents turns up in most bands).
_MERGE_AT = 1 << 22
#: Points of the numerical integration in :func:`optimal_params` (the trapezoid rule on this
#: grid picks the same (bands, rows) as adaptive quadrature for 16..1024 permutations).
_GRID = 513
#: Seeded odd multipliers for the band hash (splitmix64 of 0x5EED + i); fixed so results are
#: reproducible across runs and machines.
_GOLDEN = 0x9E3779B97F4A7C15
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _splitmix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on a uint64 array: a cheap, well-mixed bijection."""
    x = x ^ (x >> np.uint64(30))
    x = x * _M1
    x = x ^ (x >> np.uint64(27))
    x = x * _M2
    return x ^ (x >> np.uint64(31))


def _multipliers(count: int) -> np.ndarray:
    seeds = (np.arange(1, count + 1, dtype=np.uint64) * np.uint64(_GOLDEN)) ^ np.uint64(0x5EED)
    return _splitmix(seeds) | np.uint64(1)


def band_hashes(signatures: np.ndarray, band: int, rows: int) -> np.ndarray:
    """One uint64 per document for band ``band``: equal rows give equal values."""
    block = signatures[:, band * rows:(band + 1) * rows].astype(np.uint64)
    mult = _multipliers((band + 1) * rows)[band * rows:]  # each band its own constants
    return _splitmix(block @ mult)  # the sum of products wraps mod 2**64, as intended


def _miss_probability(s: np.ndarray, b: np.ndarray, r: np.ndarray) -> np.ndarray:
    """(1 - s**r)**b for every (b, r) row and similarity column, in log space for speed."""
    with np.errstate(divide="ignore"):  # log(0) at s = 0 and log1p(-1) at s = 1 are exact
        sr = np.exp(r[:, None] * np.log(s)[None, :])
        return np.exp(b[:, None] * np.log1p(-np.minimum(sr, 1.0)))


def _error_areas(threshold: float, b: np.ndarray, r: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(false-positive area below the threshold, false-negative area above it) per (b, r)."""
    lo = np.linspace(0.0, threshold, _GRID)
    hi = np.linspace(threshold, 1.0, _GRID)
    fp = np.trapezoid(1.0 - _miss_probability(lo, b, r), lo, axis=1)
    fn = np.trapezoid(_miss_probability(hi, b, r), hi, axis=1)
    return fp, fn


@functools.lru_cache(maxsize=64)
def optimal_params(threshold: float, num_perm: int, fp_weight: float = 0.5,
                   fn_weight: float = 0.5) -> tuple[int, int]:
    """(bands, rows) with bands * rows <= num_perm minimising the weighted error areas.

    The false-positive area is the candidate probability integrated over similarities below
    the threshold, the false-negative area the miss probability integrated above it; the pair
    with the smallest ``fp_weight * fp + fn_weight * fn`` wins (ties: fewer rows, then fewer
    bands). Weighting misses more (the scan uses 0.3 / 0.7) trades speed for recall.
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int | float | np.floating) \
            or not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    if isinstance(num_perm, bool) or not isinstance(num_perm, int | np.integer) or num_perm < 1:
        raise ValueError(f"num_perm must be a positive integer, got {num_perm!r}")
    if fp_weight < 0 or fn_weight < 0 or fp_weight + fn_weight <= 0:
        raise ValueError("fp_weight and fn_weight must be >= 0 and not both 0")
    return _search_params(float(threshold), int(num_perm), fp_weight, fn_weight)


def scan_params(threshold: float, num_perm: int, fp_weight: float = 0.5,
                fn_weight: float = 0.5) -> tuple[int, int]:
    """:func:`optimal_params`, kept in the cache folder (see :mod:`neardup_core.tables`).

    The search is ~35 ms of numpy, paid by every fresh process's first scan. Scans ask at a
    handful of floors, so only they use this: arbitrary thresholds would fill the folder with
    one small file each.
    """
    key = f"{float(threshold)!r}|{int(num_perm)}|{float(fp_weight)!r}|{float(fn_weight)!r}"
    got = cached_arrays(
        "lsh-params", [__file__], key,
        lambda: {"bands_rows": np.array(optimal_params(threshold, num_perm, fp_weight,
                                                       fn_weight), np.int64)},
        lambda a: (a.get("bands_rows") is not None and a["bands_rows"].dtype == np.int64
                   and a["bands_rows"].shape == (2,) and int(a["bands_rows"].min()) >= 1
                   and int(a["bands_rows"].prod()) <= num_perm))
    bands, rows = got["bands_rows"].tolist()
    return int(bands), int(rows)


def _search_params(threshold: float, num_perm: int, fp_weight: float,
                   fn_weight: float) -> tuple[int, int]:
    bs, rs = [], []
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            bs.append(b)
            rs.append(r)
    b_arr = np.array(bs, dtype=np.float64)
    r_arr = np.array(rs, dtype=np.float64)
    err = np.empty(b_arr.shape[0])
    step = 2048  # bounded memory: step x _GRID floats at a time
    for i in range(0, err.shape[0], step):
        sl = slice(i, i + step)
        fp, fn = _error_areas(threshold, b_arr[sl], r_arr[sl])
        err[sl] = fp_weight * fp + fn_weight * fn
    best = np.lexsort((b_arr, r_arr, np.round(err, 12)))[0]
    return int(bs[best]), int(rs[best])


def candidate_probability(similarity: float | np.ndarray, bands: int, rows: int) -> np.ndarray:
    """Chance that two documents of this Jaccard similarity share at least one band."""
    s = np.asarray(similarity, dtype=np.float64)
    return 1.0 - (1.0 - s**rows) ** bands


def _check_band_args(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    sig = np.asarray(signatures)
    if sig.ndim != 2:
        raise ValueError(f"signatures must be 2-D (documents, num_perm), got shape {sig.shape}")
    if not np.issubdtype(sig.dtype, np.integer):
        raise TypeError(f"signatures must be integers (uint32), got {sig.dtype}")
    for name, v in (("bands", bands), ("rows", rows)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if bands * rows > sig.shape[1]:
        raise ValueError(f"bands * rows = {bands * rows} exceeds the signature length "
                         f"{sig.shape[1]}")
    return sig


def pairs_in_runs(starts: np.ndarray, counts: np.ndarray, members: np.ndarray,
                  window: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of ``members`` (sorted positions) within each run; ``window`` caps the offset."""
    n = members.shape[0]
    rem = np.repeat(starts + counts, counts) - np.arange(n) - 1  # later members in my run
    pos = np.flatnonzero(rem > 0)
    rem = rem[pos]
    out_a: list[np.ndarray] = []
    out_b: list[np.ndarray] = []
    delta = 1
    while pos.size and (window is None or delta <= window):
        out_a.append(members[pos])
        out_b.append(members[pos + delta])
        delta += 1
        live = rem >= delta
        pos, rem = pos[live], rem[live]
    if not out_a:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(out_a), np.concatenate(out_b)


def crowded_run_pairs(sub: np.ndarray, counts: np.ndarray, window: int,
                      hubs: np.ndarray | None = None, chain_keys: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (unordered) linking the members of crowded buckets: ``sub`` holds consecutive runs
    of ``counts`` members, each in index order. Each member with its next ``window`` (in
    ``chain_keys`` order when given), and with ``hubs`` each with its run's lowest-hub member
    (ties: the first). ``hubs`` and ``chain_keys`` are indexed by member."""
    starts = np.cumsum(counts) - counts
    chained = sub
    if chain_keys is not None:
        chained = sub[np.lexsort((chain_keys[sub], np.repeat(np.arange(counts.shape[0]),
                                                             counts)))]
    a, b = pairs_in_runs(starts, counts, chained, window)
    if hubs is None:
        return a, b
    spoke = np.repeat(sub[lowest_in_runs(hubs[sub], counts)], counts)
    keep = spoke != sub
    return np.concatenate((a, spoke[keep])), np.concatenate((b, sub[keep]))


def _unique_codes(codes: list[np.ndarray]) -> np.ndarray:
    """Sorted distinct pair codes (by sorting: numpy's hashing np.unique is far slower)."""
    code = np.sort(np.concatenate(codes))
    if code.size > 1:
        new = np.ones(code.size, dtype=bool)
        new[1:] = code[1:] != code[:-1]
        code = code[new]
    return code


def candidate_pairs(signatures: np.ndarray, bands: int, rows: int, *, max_bucket: int = 2000,
                    bucket_window: int = DEFAULT_BUCKET_WINDOW, hubs: np.ndarray | None = None,
                    chain_keys: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """(a, b, truncated_buckets): every pair sharing a band, a < b, unique, sorted by (a, b).

    ``signatures`` is (documents, num_perm) uint32; the first ``bands * rows`` columns are
    used. Buckets over ``max_bucket`` members are truncated as the module docstring explains;
    ``truncated_buckets`` counts them over all bands. With ``hubs`` (an integer per document,
    lowest first), a truncated bucket is also linked as a star: every member is paired with
    its lowest-``hubs`` member (ties: the lowest index). A scan passes its reference ranks,
    so the file a group of near-copies would keep is paired with all of them. With
    ``chain_keys`` (a uint64 per document), a truncated bucket's chain follows their order
    instead of the documents' (a scan passes SimHashes: neighbours in their order tend to be
    alike, so the chain links close copies rather than arbitrary ones).
    """
    sig = _check_band_args(signatures, bands, rows)
    if max_bucket < 2:
        raise ValueError(f"max_bucket must be at least 2, got {max_bucket!r}")
    if bucket_window < 1:
        raise ValueError(f"bucket_window must be at least 1, got {bucket_window!r}")
    n = sig.shape[0]
    empty = np.empty(0, dtype=np.int64)
    if hubs is not None:
        hubs = np.asarray(hubs, dtype=np.int64)
        if hubs.shape != (n,):
            raise ValueError(f"hubs must hold one value per document ({n}), got {hubs.shape}")
    if chain_keys is not None:
        chain_keys = np.asarray(chain_keys, dtype=np.uint64)
        if chain_keys.shape != (n,):
            raise ValueError(f"chain_keys must hold one value per document ({n}), got "
                             f"{chain_keys.shape}")
    if n < 2:
        return empty, empty.copy(), 0
    idx_bits = max(1, (n - 1).bit_length())
    low = np.uint64((1 << idx_bits) - 1)
    index = np.arange(n, dtype=np.uint64)
    codes: list[np.ndarray] = []
    truncated = 0
    for band in range(bands):
        h = band_hashes(sig, band, rows)
        packed = np.sort((h & ~low) | index)  # hash in the high bits, index in the low ones
        top = packed >> np.uint64(idx_bits)
        members = (packed & low).astype(np.int64)
        first = np.ones(n, dtype=bool)
        first[1:] = top[1:] != top[:-1]
        starts = np.flatnonzero(first)
        counts = np.diff(np.append(starts, n))
        crowded = counts > max_bucket
        truncated += int(crowded.sum())
        for runs, window in ((crowded, bucket_window), (~crowded & (counts > 1), None)):
            if not runs.any():
                continue
            sub = members[np.repeat(runs, counts)]  # members of these runs, runs kept together
            c = counts[runs]
            if window is None:
                a, b = pairs_in_runs(np.cumsum(c) - c, c, sub, None)
            else:
                a, b = crowded_run_pairs(sub, c, window, hubs, chain_keys)
                a, b = np.minimum(a, b), np.maximum(a, b)
            codes.append(a.astype(np.uint64) * np.uint64(n) + b.astype(np.uint64))
        if len(codes) > 1 and sum(c.size for c in codes) > _MERGE_AT + 2 * codes[0].size:
            codes = [_unique_codes(codes)]  # alike documents share many bands: merge early
    if not codes:
        return empty, empty.copy(), truncated
    code = _unique_codes(codes)
    a = (code // np.uint64(n)).astype(np.int64)
    b = (code % np.uint64(n)).astype(np.int64)
    return a, b, truncated


class MinHashLSH:
    """A small incremental LSH index: insert signatures under keys, query similar keys.

    For interactive use (one document against a prepared set); batch scans use
    :func:`candidate_pairs`, which is vectorised. Buckets are Python dicts keyed by band hash.
    """

    def __init__(self, threshold: float = 0.5, num_perm: int = 128, *,
                 fp_weight: float = 0.5, fn_weight: float = 0.5) -> None:
        self.threshold = float(threshold)
        self.num_perm = int(num_perm)
        self.bands, self.rows = optimal_params(threshold, num_perm, fp_weight, fn_weight)
        self._buckets: list[dict[int, list[Hashable]]] = [defaultdict(list)
                                                           for _ in range(self.bands)]
        self._keys: dict[Hashable, tuple[int, tuple[int, ...]]] = {}  # key -> (seq, hashes)
        self._seq = 0

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._keys

    def _hashes(self, sig: np.ndarray) -> tuple[int, ...]:
        s = np.asarray(sig).reshape(1, -1)
        if s.shape[1] != self.num_perm:
            raise ValueError(f"signature has {s.shape[1]} values, expected {self.num_perm}")
        _check_band_args(s, self.bands, self.rows)
        return tuple(int(band_hashes(s, band, self.rows)[0]) for band in range(self.bands))

    def insert(self, key: Hashable, sig: np.ndarray) -> None:
        """Add ``key`` with signature ``sig``; a key can be inserted once."""
        if key in self._keys:
            raise ValueError(f"key {key!r} is already in the index")
        hs = self._hashes(sig)
        for bucket, h in zip(self._buckets, hs, strict=True):
            bucket[h].append(key)
        self._keys[key] = (self._seq, hs)
        self._seq += 1

    def remove(self, key: Hashable) -> None:
        _, hs = self._keys.pop(key)
        for bucket, h in zip(self._buckets, hs, strict=True):
            bucket[h].remove(key)
            if not bucket[h]:
                del bucket[h]

    def query(self, sig: np.ndarray) -> list[Hashable]:
        """Keys sharing at least one band with ``sig``, in insertion order."""
        hs = self._hashes(sig)
        found: set[Hashable] = set()
        for bucket, h in zip(self._buckets, hs, strict=True):
            found.update(bucket.get(h, ()))
        return sorted(found, key=lambda k: self._keys[k][0])
