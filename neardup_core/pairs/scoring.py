"""Scores between documents, from their fingerprints alone (texts are not kept).

The threshold a user moves applies to one number, the *score*, which always estimates the
Jaccard similarity of the two documents' normalised shingle sets, whichever method found them:
MinHash estimates it directly; with SimHash alone the Hamming distance d is turned into the
angle between weighted feature vectors (Charikar: P[bit differs] = theta / pi), its cosine c,
and the Jaccard value of equal-sized sets with that cosine, c / (2 - c).
"""

from __future__ import annotations

import numpy as np

from neardup_core.models import Method
from neardup_core.threadwork import side_by_side

#: Pairs compared per block by :func:`minhash_agreement` (256-2,048 alike; 4,096 7 % slower).
AGREEMENT_CHUNK = 2048


def simhash_similarity(distance: np.ndarray | int) -> np.ndarray:
    """Jaccard-equivalent similarity for a 64-bit SimHash Hamming distance."""
    d = np.asarray(distance, dtype=np.float64)
    c = np.cos(np.pi * np.clip(d, 0, 64) / 64.0)
    c = np.clip(c, 0.0, 1.0)
    return (c / (2.0 - c)).astype(np.float32)


def distance_for_similarity(similarity: float) -> int:
    """The largest Hamming distance whose :func:`simhash_similarity` is still >= similarity."""
    d = np.arange(65)
    ok = simhash_similarity(d) >= np.float32(similarity)
    return int(d[ok].max()) if ok.any() else 0


def hamming(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """Bit differences between uint64 fingerprints, vectorised."""
    x = np.bitwise_xor(np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64))
    return np.bitwise_count(x).astype(np.uint8)


def minhash_jaccard(sig: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Share of equal MinHash slots between ``sig`` (k,) and each row of ``others`` (m, k)."""
    if sig.shape[-1] == 0:
        return np.full(others.shape[0], np.nan, dtype=np.float32)
    return (others == sig[None, :]).mean(axis=1, dtype=np.float64).astype(np.float32)


def minhash_agreement(minhash: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Share of equal slots between rows ``left[i]`` and ``right[i]``; chunked so the gathered
    rows stay in cache (a 2048 x 128 block of uint32 is 1 MB), into buffers made once: fresh
    blocks per chunk cost their first touch each time (on the VMs here, 380,000 pairs of
    random rows at 10^6 documents: 94 ms against 146). The equal slots are counted as the
    set bits of the comparison's bytes read eight at a time (half of ``count_nonzero``'s)."""
    k = minhash.shape[1]
    m = left.shape[0]
    out = np.empty(m, dtype=np.float32)
    step = min(AGREEMENT_CHUNK, m)
    if not step:
        return out
    n = minhash.shape[0]
    for ends in (left, right):  # checked once here: ``take`` that checks writes twice
        if int(ends.min()) < -n or int(ends.max()) >= n:
            raise IndexError(f"row indices must be in [-{n}, {n})")
    x = np.empty((step, k), dtype=minhash.dtype)
    y = np.empty((step, k), dtype=minhash.dtype)
    eq = np.empty((step, k), dtype=bool)
    for s in range(0, m, step):
        c = min(step, m - s)
        np.take(minhash, left[s:s + c], axis=0, out=x[:c], mode="wrap")
        np.take(minhash, right[s:s + c], axis=0, out=y[:c], mode="wrap")
        np.equal(x[:c], y[:c], out=eq[:c])
        if k % 8 == 0:
            same = np.bitwise_count(eq[:c].view(np.uint64)).sum(axis=1, dtype=np.int64)
        else:
            same = np.count_nonzero(eq[:c], axis=1)
        np.divide(same, np.float32(k), out=out[s:s + c], casting="unsafe")
    return out


#: :func:`score_pairs` asked for ``parallel`` scores this many pairs or more in two halves side
#: by side (a CONNECTED jump at 10^6 documents scores some 200,000 members against their
#: references: 38 ms of MinHash rows, which release the GIL)
SIDE_BY_SIDE_PAIRS = 20_000


def score_pairs(simhash: np.ndarray, minhash: np.ndarray, text_class: np.ndarray,
                method: Method, left: np.ndarray, right: np.ndarray, *, parallel: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(score, distance, jaccard) of documents ``left[i]`` against ``right[i]``, vectorised.

    ``text_class`` is equal exactly where two normalised texts are (identical texts score 1,
    whatever their fingerprints say); ``minhash`` has no columns when only SimHash was kept.
    ``parallel``: from SIDE_BY_SIDE_PAIRS pairs, each half on a thread of its own
    (:func:`~neardup_core.threadwork.side_by_side`; the same scores).
    """
    left = np.asarray(left, dtype=np.intp)
    right = np.asarray(right, dtype=np.intp)
    if parallel and left.shape[0] >= SIDE_BY_SIDE_PAIRS and right.shape == left.shape:
        half = left.shape[0] // 2
        halves = side_by_side(
            lambda: score_pairs(simhash, minhash, text_class, method, left[:half],
                                right[:half]),
            lambda: score_pairs(simhash, minhash, text_class, method, left[half:],
                                right[half:]))
        score, dist, jac = (np.concatenate(column) for column in zip(*halves, strict=True))
        return score, dist, jac
    dist = hamming(simhash[left], simhash[right])
    k = minhash.shape[1]
    if k == 0:
        jac = np.full(left.shape[0], np.nan, dtype=np.float32)
    else:
        jac = minhash_agreement(minhash, left, right)
    score = simhash_similarity(dist) if method == Method.SIMHASH or k == 0 else jac.copy()
    score[text_class[left] == text_class[right]] = 1.0
    return score, dist, jac
