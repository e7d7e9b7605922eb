"""Weighted 64-bit SimHash (Charikar), vectorised and exactly reproducible.

Bit ``i`` of the result is 1 when the weighted vote of the features on bit ``i`` of their hashes
is positive: ``sum(w_j * (+1 if bit i of h_j else -1)) > 0``; ties give 0. Bit 0 is the least
significant bit of the int.

Votes are counted per byte: for each of the 8 bytes of the hashes, one ``np.bincount`` of the
weights by (byte value, document), then folding the 256 sums gives that byte's 8 bit sums.
That is 8 passes over the features of a whole batch of documents instead of unpacking them
into an (n, 64) matrix per document. A document's total weight is the sum of its 256 tallies
of any one byte.

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


#: Float64 cells of vote tallies folded at a time (8 MB): bounds memory for huge batches.
_FOLD_CELLS = 1 << 20


def _bit_sums(hist: np.ndarray, out: np.ndarray) -> None:
    """out[k, t, d] = the sum of hist[v, k * n + d] over byte values v with bit t set, for
    ``hist`` of shape (256, width * n) and ``out`` of shape (width, 8, n).

    Folding halves: the upper half of the values is those with the top bit set; adding it
    onto the lower half leaves the same question for the next bit. Values run along the first
    axis, so every sum adds whole rows (vectorised), never short rows. Plain numpy, no BLAS:
    a matrix product is faster in theory, but multithreaded BLAS on a busy machine made it
    the slowest step of a whole fingerprint.
    """
    width, _, n = out.shape
    s = hist
    for t in range(7, -1, -1):
        half = 1 << t
        upper = s[half:]
        out[:, t, :] = upper.sum(axis=0).reshape(width, n)
        s = s[:half] + upper


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

    A batch of documents costs 8 ``bincount`` calls in all, not 8 per document; they are
    fastest when each group's features are together (the tallies of one group stay in
    cache), as :func:`~neardup_core.text.features.word_features_many` gives them. Groups without
    features (or with zero weights only) get 0.
    """
    h, w = _check(hashes, weights)
    g = np.asarray(groups, dtype=np.int64)
    if g.shape != h.shape:
        raise ValueError(f"groups must match hashes, got {g.shape} and {h.shape}")
    return simhash_grouped_unchecked(h, w, g, ngroups)


def simhash_grouped_unchecked(h: np.ndarray, w: np.ndarray, g: np.ndarray, ngroups: int
                              ) -> np.ndarray:
    """:func:`simhash_grouped` of uint64 ``h``, float64 ``w`` (finite, >= 0) and int64 ``g``
    as they are: the fingerprint's own arrays, right by construction."""
    out = np.zeros(ngroups, dtype=np.uint64)
    if h.shape[0] == 0:
        return out
    top = np.zeros(ngroups, dtype=np.float64)
    np.maximum.at(top, g, w)
    scale = np.zeros(ngroups, dtype=np.float64)
    np.divide(WEIGHT_SCALE, top, out=scale, where=top > 0)
    q = np.take(scale, g)
    q *= w
    np.rint(q, out=q)
    # byte p of every hash as one contiguous row: bin (value, group) is then value * n + group
    by = np.ascontiguousarray(h, dtype="<u8").view(np.uint8).reshape(-1, 8).T.copy()
    idx = np.empty(g.shape[0], dtype=np.int64)
    votes = np.empty((SIMHASH_BITS, ngroups), dtype=np.float64)
    total = None
    # a few bytes' tallies side by side, each (256, n): folding them is then one call per level
    step = max(1, min(8, _FOLD_CELLS // (256 * ngroups)))
    for p0 in range(0, 8, step):
        width = min(step, 8 - p0)
        hist = np.empty((256, width, ngroups), dtype=np.float64)
        for j in range(width):
            np.multiply(by[p0 + j], ngroups, out=idx, dtype=np.int64)
            idx += g
            hist[:, j, :] = np.bincount(idx, weights=q, minlength=256 * ngroups).reshape(
                256, ngroups)
        if total is None:  # every weight lands in one bin per byte: exact, as above
            total = hist[:, 0, :].sum(axis=0)
        _bit_sums(hist.reshape(256, width * ngroups),
                  votes[8 * p0:8 * (p0 + width)].reshape(width, 8, ngroups))
    assert total is not None
    bits = np.ascontiguousarray(np.greater(votes.T * 2.0, total[:, None]))
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
