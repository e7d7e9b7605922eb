"""MinHash signatures with k seeded permutations, pure numpy.

Each shingle's 64-bit hash (already splitmix64-mixed, so every bit is random) is cut to its high
32 bits ``x``; permutation ``i`` maps it to ``(a_i * x + b_i) mod 2**32`` with ``a_i`` odd, which
is a bijection of the 32-bit values, and the signature keeps the minimum per permutation.

Why this is enough: classic MinHash wants min-wise independent permutations of arbitrary keys;
here the keys are already uniformly random, so all a permutation must do is order them in a way
that looks independent of the other permutations' orders. Multiplying by different odd
constants does (the smallest ``a_1 * x`` values say nothing about ``a_2 * x = (a_2 / a_1) *
(a_1 * x)``), and tests check the estimates' spread against the binomial standard error
sqrt(J (1 - J) / k). 32-bit keys collide in pairs with probability 2**-32: even a million
shingles lose only about a hundred to collisions, far below the estimator's own noise.

Speed: uint32 multiply-add-min over (num_perm, 8192) blocks that stay in cache, faster than
the 64-bit multiply-shift alternative. Batches of documents share the blocks (a segmented
minimum per block), so small files cost no more per shingle.
"""

from __future__ import annotations

import sys

import numpy as np

#: A slot no shingle has reached: the signature of an empty document.
EMPTY = np.uint32(0xFFFFFFFF)
#: uint32 cells per block (8192 columns for 128 permutations): 4 MB, which stays in cache.
CHUNK_CELLS = 1 << 20
_SHIFT32 = np.uint64(32)
_LITTLE = sys.byteorder == "little"


def hash32(shingles: np.ndarray) -> np.ndarray:
    """The 32-bit keys MinHash uses: the high half of each 64-bit shingle hash."""
    x = np.asarray(shingles, dtype=np.uint64)
    if x.ndim == 1 and x.flags.c_contiguous and x.dtype.byteorder in "=<" and _LITTLE:
        return np.ascontiguousarray(x.view(np.uint32)[1::2])  # the high halves: one pass
    return (x >> _SHIFT32).astype(np.uint32)


class MinHasher:
    """Seeded permutations and the signatures they give (datasketch-like)."""

    def __init__(self, num_perm: int = 128, seed: int = 1) -> None:
        if not isinstance(num_perm, int) or num_perm < 1:
            raise ValueError(f"num_perm must be a positive int, got {num_perm!r}")
        if not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ValueError(f"seed must be an int in [0, 2**64), got {seed!r}")
        self.num_perm = num_perm
        self.seed = seed
        rng = np.random.default_rng(seed)
        self.a = (rng.integers(0, 2**32, size=num_perm, dtype=np.uint64)
                  | np.uint64(1)).astype(np.uint32)
        self.b = rng.integers(0, 2**32, size=num_perm, dtype=np.uint64).astype(np.uint32)
        self.a.flags.writeable = False
        self.b.flags.writeable = False
        self._chunk = max(256, CHUNK_CELLS // num_perm)

    def __repr__(self) -> str:
        return f"MinHasher(num_perm={self.num_perm}, seed={self.seed})"

    def empty(self) -> np.ndarray:
        return np.full(self.num_perm, EMPTY, dtype=np.uint32)

    def signature(self, shingles: np.ndarray) -> np.ndarray:
        """uint32 (num_perm,) signature of a set of 64-bit shingle hashes (repeats are fine)."""
        x = np.asarray(shingles)
        if x.ndim != 1:
            raise ValueError(f"shingles must be 1-D, got shape {x.shape}")
        return self.signatures(x, np.zeros(x.shape[0], dtype=np.int64), 1)[0]

    def signatures(self, shingles: np.ndarray, groups: np.ndarray, ngroups: int) -> np.ndarray:
        """uint32 (ngroups, num_perm) signatures of the shingles of each group at once.

        ``groups`` (sorted, in [0, ngroups)) says which document each shingle belongs to; a
        block's minima per document come from one ``minimum.reduceat``, so a batch of small
        documents costs about what one large document of the same total size does.
        Documents without shingles get the empty signature.
        """
        x = hash32(shingles)
        g = np.asarray(groups, dtype=np.int64)
        if x.ndim != 1 or g.shape != x.shape:
            raise ValueError(f"shingles and groups must be 1-D of one length, got {x.shape} "
                             f"and {g.shape}")
        if x.shape[0] and (np.diff(g) < 0).any():
            raise ValueError("groups must be sorted")
        return self.signatures_of_keys(x, g, ngroups)

    def signatures_of_keys(self, x: np.ndarray, g: np.ndarray, ngroups: int) -> np.ndarray:
        """:meth:`signatures` from the :func:`hash32` keys and int64 groups, unchecked (the
        fingerprint's own arrays are right by construction)."""
        sig = np.full((self.num_perm, ngroups), EMPTY, dtype=np.uint32)
        if x.shape[0]:
            a = self.a[:, None]
            b = self.b[:, None]
            chunk = self._chunk
            buf = np.empty((self.num_perm, min(chunk, x.shape[0])), dtype=np.uint32)
            for i in range(0, x.shape[0], chunk):
                part = x[None, i:i + chunk]
                block = buf[:, :part.shape[1]]
                np.multiply(a, part, out=block)  # wraps mod 2**32
                np.add(block, b, out=block)
                gp = g[i:i + chunk]
                if gp[0] == gp[-1]:
                    d = int(gp[0])
                    np.minimum(sig[:, d], block.min(axis=1), out=sig[:, d])
                    continue
                cut = np.concatenate(([0], np.flatnonzero(gp[1:] != gp[:-1]) + 1))
                docs = gp[cut]
                sig[:, docs] = np.minimum(sig[:, docs], np.minimum.reduceat(block, cut, axis=1))
        return np.ascontiguousarray(sig.T)

    @staticmethod
    def jaccard(a: np.ndarray, b: np.ndarray) -> float:
        """Estimated Jaccard similarity: the share of equal slots."""
        return jaccard(a, b)


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Share of equal slots of two signatures of the same length (NaN when both are empty)."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"signatures must be 1-D of one length, got {a.shape} and {b.shape}")
    if a.shape[0] == 0:
        return float("nan")
    return float(np.count_nonzero(a == b)) / a.shape[0]


def signatures_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """True when two signatures are identical (same length, same values)."""
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def standard_error(j: float, num_perm: int) -> float:
    """Standard error of a k-permutation MinHash estimate of Jaccard ``j``."""
    return float(np.sqrt(j * (1.0 - j) / num_perm))
