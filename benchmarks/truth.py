"""Ground truth: exact Jaccard similarity of normalised 3-gram shingles, for all pairs at once.

The definition is neardup's (``neardup_core.fingerprint.fingerprinter.normalized_jaccard``):
NFKC + casefold,
units are Latin words (runs of letters and digits) and single CJK characters, shingles are
``n`` consecutive units, similarity is the Jaccard index of the two shingle *sets*. Shingles are
kept as 64-bit hashes (a collision among 10^8 shingles has odds of about 10^-3, far below any
count we print).

Every pair with similarity >= ``low`` is found *exactly* with prefix filtering (Chaudhuri et
al. 2006, Bayardo et al. 2007): sort each set by global token frequency, rarest first; two sets
with Jaccard >= t must share a token among the first ``|x| - ceil(t |x|) + 1`` of each. The
candidates this yields are then verified with a sparse matrix product, so the truth never
depends on any sketch.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import xxhash

if TYPE_CHECKING:   # imported where a matrix is built: the peers import shingles() from here
    from scipy import sparse  # in the process they are timed in, and never need SciPy

#: neardup's CJK blocks (text.normalise.CJK_RANGES): inside them every letter or digit is one unit.
_CJK = ("\u1100-\u11ff\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3200-\u33ff\u3400-\u4dbf"
        "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff65-\uffdc"
        "\U0001aff0-\U0001b16f\U00020000-\U0003ffff")
#: A CJK letter or digit alone, or a run of other letters and digits.
UNIT_RE = re.compile(f"(?=[^\\W_])[{_CJK}]|(?:(?![{_CJK}])[^\\W_])+")
_M = np.uint64(0x9E3779B97F4A7C15)
_MASK = (1 << 64) - 1


def units(text: str) -> list[str]:
    return UNIT_RE.findall(unicodedata.normalize("NFKC", text).casefold())


def shingles(text: str, n: int = 3) -> list[str]:
    """Shingle strings, as the peers hash them (units joined by one space)."""
    u = units(text)
    if len(u) < n:
        return [" ".join(u)] if u else []
    return [" ".join(u[i:i + n]) for i in range(len(u) - n + 1)]


def _fmix(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xFF51AFD7ED558CCD)
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xC4CEB9FE1A85EC53)
    return h ^ (h >> np.uint64(33))


class ShingleHasher:
    """Text -> sorted unique uint64 shingle hashes; unit hashes are memoised across texts."""

    def __init__(self, n: int = 3) -> None:
        self.n = n
        self._memo: dict[str, int] = {}

    def __call__(self, text: str) -> np.ndarray:
        u = units(text)
        if not u:
            return np.empty(0, np.uint64)
        memo = self._memo
        for w in u:
            if w not in memo:
                memo[w] = xxhash.xxh64_intdigest(w.encode())
        h = np.fromiter(map(memo.__getitem__, u), dtype=np.uint64, count=len(u))
        n = self.n
        if h.size < n:
            # fewer units than a shingle: the whole text is one shingle
            acc = np.uint64(len(u))
            for x in h:
                acc = _fmix(np.array([acc * _M + x], dtype=np.uint64))[0]
            return np.array([acc], dtype=np.uint64)
        m = h.size - n + 1
        acc = np.zeros(m, dtype=np.uint64)
        with np.errstate(over="ignore"):
            for k in range(n):
                acc = _fmix(acc * _M + h[k:k + m])
        return np.unique(acc)


def exact_jaccard(a: np.ndarray, b: np.ndarray) -> float:
    if a.size == 0 and b.size == 0:
        return 1.0
    inter = np.intersect1d(a, b, assume_unique=True).size
    return inter / (a.size + b.size - inter)


@dataclass(frozen=True)
class Truth:
    """Every pair with similarity >= ``must`` (listed), and any other pair's exact value on demand.

    ``matrix`` is the documents x shingles incidence matrix (token ids ordered rarest first),
    which is all :meth:`similarity` needs; texts are not kept.
    """

    n: int
    a: np.ndarray        # int32, a < b: every pair with similarity >= must
    b: np.ndarray        # int32
    jaccard: np.ndarray  # float32
    must: float
    matrix: sparse.csr_matrix
    sizes: np.ndarray    # int64 shingles per document

    @classmethod
    def from_sets(cls, sets: Sequence[np.ndarray], must: float) -> Truth:
        m, sizes = _csr(sets)
        a, b, j = similar_pairs(m, sizes, must)
        return cls(len(sets), a, b, j, must, m, sizes)

    def similarity(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Exact Jaccard of each pair (a[i], b[i])."""
        return verify(self.matrix, self.sizes, np.asarray(a, np.int64), np.asarray(b, np.int64))

    def save(self, path: str | Path) -> None:
        m = self.matrix
        np.savez_compressed(path, a=self.a, b=self.b, jaccard=self.jaccard,
                            meta=np.array([self.n, m.shape[1]]), must=np.array([self.must]),
                            indices=m.indices.astype(np.int32), indptr=m.indptr.astype(np.int64))

    @classmethod
    def load(cls, path: str | Path) -> Truth:
        from scipy import sparse

        z = np.load(path)
        n, ntok = (int(x) for x in z["meta"])
        indices, indptr = z["indices"], z["indptr"]
        m = sparse.csr_matrix((np.ones(indices.size, np.float32), indices, indptr),
                              shape=(n, ntok))
        return cls(n, z["a"], z["b"], z["jaccard"], float(z["must"][0]), m,
                   np.diff(indptr).astype(np.int64))


def _csr(sets: Sequence[np.ndarray]) -> tuple[sparse.csr_matrix, np.ndarray]:
    from scipy import sparse

    sizes = np.fromiter((s.size for s in sets), dtype=np.int64, count=len(sets))
    allh = np.concatenate(sets) if len(sets) else np.empty(0, np.uint64)
    uniq, inv, counts = np.unique(allh, return_inverse=True, return_counts=True)
    # token ids ordered rarest first (ties by hash), so a row's first tokens are its rarest
    order = np.lexsort((uniq, counts))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    tok = rank[inv.ravel()].astype(np.int32)
    indptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    m = sparse.csr_matrix((np.ones(tok.size, np.float32), tok, indptr),
                          shape=(len(sets), max(int(uniq.size), 1)))
    m.sort_indices()
    return m, sizes


def _pairs_within(groups_start: np.ndarray, groups_len: np.ndarray, docs: np.ndarray,
                  limit: int = 4_000_000) -> Iterable[tuple[np.ndarray, np.ndarray]]:
    """All pairs of entries within each group (docs[start:start+len]), vectorised by size."""
    for g in np.unique(groups_len):
        if g < 2:
            continue
        starts = groups_start[groups_len == g]
        iu, ju = np.triu_indices(int(g), 1)
        step = max(1, limit // iu.size)
        for s in range(0, starts.size, step):
            block = starts[s:s + step, None] + np.arange(g)[None, :]
            d = docs[block]
            yield d[:, iu].ravel(), d[:, ju].ravel()


#: Shared tokens required among the extended prefixes (see :func:`similar_pairs`).
PREFIX_K = 8


def similar_pairs(m: sparse.csr_matrix, sizes: np.ndarray, t: float,
                  k_max: int = PREFIX_K) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of rows with exact Jaccard >= ``t``: (a, b, jaccard), a < b.

    Extended prefix filter: J(x, y) >= t implies an overlap o >= ceil(t |x|), so the first
    ``|x| - ceil(t |x|) + k`` tokens of x (rarest first) hold at least k of the overlap's first
    k tokens, and so do y's; a true pair therefore shares >= k tokens among those prefixes.
    k = 1 is the classic filter; a larger k keeps pairs that share one common token out of the
    (costly) verification, and is still exact.
    """
    n = m.shape[0]
    alpha = np.ceil(t * sizes - 1e-9).astype(np.int64)
    k = np.minimum(k_max, alpha)
    plen = np.where(sizes > 0, sizes - alpha + k, 0)
    starts = m.indptr[:-1]
    if n == 0 or plen.sum() == 0:
        e = np.empty(0, np.int32)
        return e, e, np.empty(0, np.float32)
    take = np.repeat(starts - np.cumsum(plen) + plen, plen) + np.arange(int(plen.sum()))
    ptok = m.indices[take]
    pdoc = np.repeat(np.arange(n), plen)
    order = np.lexsort((pdoc, ptok))
    ptok, pdoc = ptok[order], pdoc[order]
    cut = np.flatnonzero(np.diff(ptok)) + 1
    gstart = np.concatenate([[0], cut])
    glen = np.diff(np.concatenate([gstart, [ptok.size]]))
    keys: list[np.ndarray] = []
    for a, b in _pairs_within(gstart, glen, pdoc):
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        sa, sb = sizes[lo], sizes[hi]
        ok = (lo != hi) & (np.minimum(sa, sb) >= t * np.maximum(sa, sb) - 1e-9)  # size filter
        keys.append(lo[ok].astype(np.int64) * n + hi[ok])
    if not keys:
        e = np.empty(0, np.int32)
        return e, e, np.empty(0, np.float32)
    key, count = np.unique(np.concatenate(keys), return_counts=True)
    a, b = key // n, key % n
    ok = count >= np.minimum(k[a], k[b])
    a, b = a[ok], b[ok]
    jac = verify(m, sizes, a, b)
    keep = jac >= t - 1e-9
    return a[keep].astype(np.int32), b[keep].astype(np.int32), jac[keep].astype(np.float32)


def verify(m: sparse.csr_matrix, sizes: np.ndarray, a: np.ndarray, b: np.ndarray,
           chunk: int = 100_000) -> np.ndarray:
    """Exact Jaccard of rows a[i], b[i] of a binary CSR matrix."""
    out = np.empty(a.size, dtype=np.float64)
    for s in range(0, a.size, chunk):
        aa, bb = a[s:s + chunk], b[s:s + chunk]
        inter = np.asarray(m[aa].multiply(m[bb]).sum(axis=1)).ravel()
        union = sizes[aa] + sizes[bb] - inter
        out[s:s + chunk] = np.where(union > 0, inter / np.maximum(union, 1), 1.0)
    return out


def brute_force_pairs(sets: Sequence[np.ndarray], t: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same answer as :func:`similar_pairs` the slow way; for tests on small inputs."""
    a_l, b_l, j_l = [], [], []
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            jac = exact_jaccard(sets[i], sets[j])
            if jac >= t - 1e-9:
                a_l.append(i)
                b_l.append(j)
                j_l.append(jac)
    return np.array(a_l, np.int32), np.array(b_l, np.int32), np.array(j_l, np.float32)


# -- scoring a tool's groups ----------------------------------------------------------------------
#: Pairs at least this alike must end up in one group (recall) ...
MUST = 0.7
#: ... and pairs below this must not (precision). In between: don't care.
MUST_NOT = 0.45
#: Grouped pairs verified exactly at most; beyond this a uniform sample gives the precision.
VERIFY_MAX = 2_000_000


@dataclass(frozen=True)
class Quality:
    precision: float
    recall: float
    true_pairs: int       # truth >= MUST
    found: int            # of those, grouped
    grouped_pairs: int    # all pairs inside groups
    false_pairs: int      # grouped pairs with truth < MUST_NOT (estimated when sampled)
    dont_care: int        # grouped pairs in between (estimated when sampled)
    sampled: bool         # too many grouped pairs: precision from a uniform sample

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _label(groups: Sequence[Sequence[int]], n: int) -> np.ndarray:
    label = np.full(n, -1, dtype=np.int64)
    for gid, g in enumerate(groups):
        label[np.asarray(g, dtype=np.int64)] = gid
    return label


def grouped_pairs(groups: Sequence[Sequence[int]], sample: int = VERIFY_MAX,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray, bool]:
    """All pairs of documents that share a group (a uniform sample when there are too many)."""
    gs = [np.asarray(g, dtype=np.int64) for g in groups if len(g) >= 2]
    total = sum(g.size * (g.size - 1) // 2 for g in gs)
    if not gs:
        return np.empty(0, np.int64), np.empty(0, np.int64), False
    members = np.concatenate(gs)
    lens = np.array([g.size for g in gs])
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
    if total <= sample:
        parts = list(_pairs_within(starts, lens, members))
        return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                False)
    rng = np.random.default_rng(seed)
    weights = lens * (lens - 1) / 2.0
    gi = rng.choice(len(gs), size=sample, p=weights / weights.sum())
    x = rng.integers(0, lens[gi])
    y = rng.integers(0, lens[gi] - 1)
    y = np.where(y >= x, y + 1, y)
    return members[starts[gi] + x], members[starts[gi] + y], True


def score_groups(groups: Sequence[Sequence[int]], truth: Truth) -> Quality:
    """Pair-level precision and recall of ``groups`` (lists of document indices).

    Recall: share of the pairs with truth >= MUST whose documents share a group. Precision:
    among grouped pairs, those with truth >= MUST over those plus the ones below MUST_NOT;
    grouped pairs in between are "don't care" and counted separately. Every pair inside a
    group counts, so a chain that joins two unrelated documents is a false pair even when each
    link is right: that is what a user sees.
    """
    ga, gb, sampled = grouped_pairs(groups)
    jac = truth.similarity(ga, gb) if ga.size else np.empty(0)
    pos = jac >= MUST - 1e-9
    neg = jac < MUST_NOT - 1e-9
    total = sum(len(g) * (len(g) - 1) // 2 for g in groups if len(g) >= 2)
    scale = total / max(ga.size, 1)
    label = _label(groups, truth.n)
    la, lb = label[truth.a], label[truth.b]
    found = int(((la == lb) & (la >= 0)).sum())
    tp, fp = int(pos.sum()), int(neg.sum())
    return Quality(precision=tp / (tp + fp) if tp + fp else 1.0,
                   recall=found / truth.a.size if truth.a.size else 1.0,
                   true_pairs=int(truth.a.size), found=found, grouped_pairs=total,
                   false_pairs=round(fp * scale), dont_care=round(int((~pos & ~neg).sum()) * scale),
                   sampled=sampled)


def together(groups: Sequence[Sequence[int]], n: int, a: np.ndarray,
             b: np.ndarray) -> np.ndarray:
    """For each pair (a[i], b[i]): do the two documents share a group?"""
    label = _label(groups, n)
    la, lb = label[a], label[b]
    return (la == lb) & (la >= 0)
