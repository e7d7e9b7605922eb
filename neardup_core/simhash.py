"""Weighted 64-bit SimHash (Charikar), vectorised and exactly reproducible.

Bit ``i`` of the result is 1 when the weighted vote of the features on bit ``i`` of their hashes
is positive: ``sum(w_j * (+1 if bit i of h_j else -1)) > 0``; ties give 0. Bit 0 is the least
significant bit of the int.

Votes are counted per byte: for each of the 8 bytes of the hashes, one ``np.bincount`` of the
weights by (document, byte value), then folding the 256 sums gives that byte's 8 bit sums.
That is 8 passes over the features of a whole batch of documents instead of unpacking them
into an (n, 64) matrix per document.

Weights are first scaled so a document's largest is 2**20, and rounded to integers (kept in
float64): every sum is then exact whatever the order of addition (below 2**53 for up to 2**32
features), so a SimHash is the same on every machine, and scaling all weights by a power of
two (or integer weights by an integer) cannot flip a bit. Features lighter than 2**-21
of the heaviest are dropped by the rounding; they could hardly move a bit anyway.
"""

from __future__ import annotations

import numpy as np

SIMHASH_BITS = 64
#: The heaviest feature's weight after scaling.
WEIGHT_SCALE = float(2**20)


def _bit_sums(hist: np.ndarray, out: np.ndarray) -> None:
    """out[:, t] = the sum of hist[:, v] over byte values v with bit t set.

    Folding halves: the upper half of the values is those with the top bit set; adding it
    onto the lower half leaves the same question for the next bit. Plain numpy, no BLAS: a
    (n, 256) @ (256, 8) product is faster in theory, but multithreaded BLAS on a busy machine
    made it the slowest step of a whole fingerprint.
    """
    s = hist
    for t in range(7, -1, -1):
        half = 1 << t
        upper = s[:, half:]
        out[:, t] = upper.sum(axis=1)
        s = s[:, :half] + upper


def _check(hashes: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h = np.asarray(hashes)
    w = np.asarray(weights, dtype=np.float64)
    if h.ndim != 1 or w.shape != h.shape:
        raise ValueError(f"hashes and weights must be 1-D of one length, got {h.shape} and "
                         f"{w.shape}")
    if h.shape[0] and h.dtype != np.uint64:
        raise ValueError(f"hashes must be uint64, got {h.dtype}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("weights must be finite and non-negative")
    return h, w


def simhash_grouped(hashes: np.ndarray, weights: np.ndarray, groups: np.ndarray,
                    ngroups: int) -> np.ndarray:
    """:func:`simhash` of each group of features (``groups[i]`` in [0, ngroups)) at once.

    A batch of documents costs 8 ``bincount`` calls in all, not 8 per document. Groups without
    features (or with zero weights only) get 0.
    """
    h, w = _check(hashes, weights)
    g = np.asarray(groups, dtype=np.int64)
    if g.shape != h.shape:
        raise ValueError(f"groups must match hashes, got {g.shape} and {h.shape}")
    out = np.zeros(ngroups, dtype=np.uint64)
    if h.shape[0] == 0:
        return out
    top = np.zeros(ngroups, dtype=np.float64)
    np.maximum.at(top, g, w)
    scale = np.zeros(ngroups, dtype=np.float64)
    np.divide(WEIGHT_SCALE, top, out=scale, where=top > 0)
    q = np.rint(w * scale[g])
    by = np.ascontiguousarray(h, dtype="<u8").view(np.uint8).reshape(-1, 8)
    base = g * 256
    votes = np.empty((ngroups, SIMHASH_BITS), dtype=np.float64)
    for p in range(8):
        hist = np.bincount(base + by[:, p], weights=q, minlength=ngroups * 256)
        _bit_sums(hist.reshape(ngroups, 256), votes[:, 8 * p:8 * p + 8])
    total = np.bincount(g, weights=q, minlength=ngroups)
    bits = 2.0 * votes > total[:, None]
    return np.packbits(bits, axis=1, bitorder="little").view("<u8").reshape(ngroups).astype(
        np.uint64)


def simhash(hashes: np.ndarray, weights: np.ndarray) -> int:
    """The weighted SimHash of features ``hashes`` (uint64) with ``weights`` (>= 0); empty -> 0."""
    h, w = _check(hashes, weights)
    return int(simhash_grouped(h, w, np.zeros(h.shape[0], dtype=np.int64), 1)[0])


def simhash_many(features: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """:func:`simhash` of each (hashes, weights) pair, as a uint64 array."""
    if not features:
        return np.empty(0, dtype=np.uint64)
    groups = np.repeat(np.arange(len(features)), [len(h) for h, _ in features])
    hashes = np.concatenate([np.asarray(h, dtype=np.uint64) for h, _ in features])
    weights = np.concatenate([np.asarray(w, dtype=np.float64) for _, w in features])
    return simhash_grouped(hashes, weights, groups, len(features))


def hamming_distance(a: int, b: int) -> int:
    """Bits that differ between two SimHashes."""
    return (int(a) ^ int(b)).bit_count()
