"""Excerpts: which document lies mostly inside another, found without comparing all pairs.

Containment of A in B is the share of A's distinct shingles (the scan's shingles: 3 units of
normalised text, boilerplate lines set aside) that B has too, for the shorter A. Resemblance
(Jaccard) cannot see it: a 300-word cut from a 1,000-word article has a Jaccard of about 0.3,
and most of it lies in the article.

Candidates come from the documents' winnowed shingle hashes
(:mod:`neardup_core.fingerprint.winnowing`) through an inverted index built with numpy: the
(hash, document) rows are sorted by hash, and every two documents in one hash's posting list
share that hash; the shared counts of each pair, over the part's winnowed set, estimate the
containment. A hash in more than MAX_POSTINGS documents says little about any two of them (a
phrase every file carries) and is left out, which bounds the work by the number of documents,
not its square. Identical texts are indexed once (the first document of each text stands for
its copies, which are one group anyway).

Every candidate whose estimate reaches CANDIDATE_MIN is then verified on the exact shingle sets
of both texts (:func:`verify`): only exact containment decides, so no pair whose containment is
under EXCERPT_FLOOR is ever reported, whatever the estimate said. (The scan spares the reading
for near-copies it already pairs at its threshold: their containment is at least their Jaccard,
so above the floor, and is estimated from it; see :mod:`neardup_core.scan.excerpts_pass`.)
Parts need MIN_SHINGLES distinct shingles, so a one-line note does not turn up inside everything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from neardup_core.models import EXCERPT_FLOOR, ExcerptTable

__all__ = ["CANDIDATE_MIN", "MAX_POSTINGS", "MIN_SHINGLES", "candidates", "shared_passages",
           "verify"]

#: Winnowed containment a pair needs to be verified: well below EXCERPT_FLOOR, since the winnowed
#: estimate loses the windows at the edges of each shared passage and is a sample.
CANDIDATE_MIN = 0.2
#: Documents a winnowed hash may be in and still pair them.
MAX_POSTINGS = 64
#: Distinct shingles a part needs (about 50 words or CJK characters: a few lines).
MIN_SHINGLES = 50
#: Pair keys gathered at once before they are counted (bounds the memory of one step).
_CHUNK_ROWS = 1 << 22
#: Pair rows (before counting) one pass over the posting lists may hold (8 bytes each); more
#: take more passes, each making the rows again.
_PASS_ROWS = 1 << 23
#: Slices the keys of a pass are counted in, by the second document.
_SLICES = 16


def candidates(winnows: Sequence[np.ndarray], shingles: np.ndarray, keep: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(part, whole, winnowed containment) of the candidate excerpts among the documents.

    ``winnows``: each document's sorted winnowed set; ``shingles``: its count of shingles
    (the part is the one with fewer, ties to the lower index); ``keep``: the documents indexed
    (one per distinct text). Only parts with MIN_SHINGLES shingles and estimates of at least
    CANDIDATE_MIN are returned, sorted by (part, whole).
    """
    n = len(winnows)
    empty = (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float32))
    sizes = np.fromiter((w.shape[0] if keep[i] else 0 for i, w in enumerate(winnows)),
                        dtype=np.int64, count=n)
    if n < 2 or sizes.sum() == 0:
        return empty
    # one sort of (hash, document) packed in a word: documents ascend within each hash; built
    # and taken apart in place (these arrays hold every winnowed hash of the collection)
    packed = np.concatenate([w for i, w in enumerate(winnows) if keep[i]]).astype(np.uint64)
    packed <<= np.uint64(32)
    packed |= np.repeat(np.arange(n, dtype=np.uint64), sizes)
    packed.sort()
    doc = (packed & np.uint64(0xFFFFFFFF)).astype(np.int32)  # document numbers fit 31 bits
    packed >>= np.uint64(32)
    starts = np.flatnonzero(np.r_[True, packed[1:] != packed[:-1]]).astype(np.int32)
    del packed
    lens = np.diff(starts, append=np.int32(doc.shape[0]))
    # Pairs are counted in passes, each over the pairs whose first document falls in one slice
    # of the documents (every occurrence of a pair lands in the same pass), so the pair keys of
    # one pass, not of the whole collection, are held at once: a folder whose documents share
    # many phrases has hundreds of millions of such keys, and only a few pairs reach the
    # estimate a candidate needs.
    by_size = [(sz, starts[lens == sz]) for sz in range(2, MAX_POSTINGS + 1)]
    by_size = [(sz, at) for sz, at in by_size if at.shape[0]]
    total = sum(at.shape[0] * sz * (sz - 1) // 2 for sz, at in by_size)
    passes = max(1, -(-total // _PASS_ROWS))
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for p in range(passes):
        for key, shared in _pair_counts(doc, by_size, n, passes, p):
            a, b = key // n, key % n
            a_part = shingles[a] <= shingles[b]
            part = np.where(a_part, a, b)
            whole = np.where(a_part, b, a)
            est = (shared / np.maximum(sizes[part], 1)).astype(np.float32)
            ok = (est >= CANDIDATE_MIN) & (shingles[part] >= MIN_SHINGLES)
            found.append((part[ok], whole[ok], est[ok]))
    if not found:
        return empty
    part, whole, est = (np.concatenate(col) for col in zip(*found, strict=True))
    order = np.lexsort((whole, part))
    return part[order], whole[order], est[order]


def _pair_counts(doc: np.ndarray, by_size: list[tuple[int, np.ndarray]], n: int, passes: int,
                 p: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The pairs that share a posting list, among those whose first document is ``p`` modulo
    ``passes``: their keys (first * n + second document) and how many lists each shares, a
    slice of the keys at a time. The keys of the pass are spread over _SLICES slices as they
    are made, so that each is counted by a small sort, not the whole pass by one."""
    slices: list[list[np.ndarray]] = [[] for _ in range(_SLICES)]
    for s, at in by_size:
        members = doc[at[:, None] + np.arange(s)]  # ascending documents in each row
        i, j = np.triu_indices(s, 1)
        step = max(1, _CHUNK_ROWS // len(i))
        for c0 in range(0, members.shape[0], step):
            m = members[c0:c0 + step]
            first = m[:, i].ravel().astype(np.int64)
            second = m[:, j].ravel().astype(np.int64)
            if passes > 1:
                mine = first % passes == p
                first, second = first[mine], second[mine]
            key = first * n + second
            where = (second % _SLICES).astype(np.uint8)
            order = np.argsort(where, kind="stable")
            bounds = np.searchsorted(where[order], np.arange(_SLICES + 1))
            key = key[order]
            for q in range(_SLICES):
                if bounds[q + 1] > bounds[q]:
                    slices[q].append(key[bounds[q]:bounds[q + 1]])
    for q in range(_SLICES):
        if slices[q]:
            keys = np.concatenate(slices[q])
            slices[q] = []
            yield _run_counts(keys)


def _run_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``keys`` and how often each occurs (a sort and a scan: np.unique's counts
    cost an extra pass)."""
    keys.sort()
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[first], np.diff(np.r_[first, keys.shape[0]])


def verify(part: np.ndarray, whole: np.ndarray, shingle_set: Callable[[int], np.ndarray | None],
           floor: float = EXCERPT_FLOOR) -> ExcerptTable:
    """The candidates whose exact containment reaches ``floor``, with exact containment and
    Jaccard similarity. ``shingle_set(i)`` gives document ``i``'s sorted distinct shingle hashes
    (None: it could not be read again, and its pairs are dropped); each is asked for once."""
    sets: dict[int, np.ndarray | None] = {}

    def get(i: int) -> np.ndarray | None:
        if i not in sets:
            sets[i] = shingle_set(i)
        return sets[i]

    out: list[tuple[int, int, float, float]] = []
    for p, w in zip(part.tolist(), whole.tolist(), strict=True):
        sp, sw = get(p), get(w)
        if sp is None or sw is None or sp.shape[0] < MIN_SHINGLES:
            continue
        if sw.shape[0] < sp.shape[0]:  # the part is the shorter text by its shingle set
            p, w, sp, sw = w, p, sw, sp
        inter = np.intersect1d(sp, sw, assume_unique=True).shape[0]
        c = inter / sp.shape[0]
        if c >= floor:
            out.append((p, w, c, inter / (sp.shape[0] + sw.shape[0] - inter)))
    if not out:
        return ExcerptTable.empty()
    out.sort(key=lambda r: (-r[2], r[0], r[1]))
    cols = list(zip(*out, strict=True))
    return ExcerptTable(np.array(cols[0], np.int32), np.array(cols[1], np.int32),
                        np.array(cols[2], np.float32), np.array(cols[3], np.float32))


# -- where: the shared passages of two texts, for reports and the app ---------------------------
#: Units as the scan cuts them, found in raw text: a run of letters, digits and marks outside
#: CJK, or one CJK character (Han, kana, hangul). Case is folded before comparing.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_UNIT = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


def _units(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    found = list(_UNIT.finditer(text))
    return [m.group().casefold() for m in found], [m.span() for m in found]


def shared_passages(part: str, whole: str, n: int = 3, min_units: int = 8
                    ) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where ``part`` and ``whole`` share text: ((start, end) in part, (start, end) in whole)
    character spans of the raw texts, in the part's order, each a run of at least
    ``min_units`` units whose shingles the whole has, aligned with the place in the whole
    where that run continues longest.

    For showing, not scoring: units are found in the raw text (no normalisation beyond case),
    so a passage is shown where a reader sees it.
    """
    pu, ps = _units(part)
    wu, ws = _units(whole)
    if len(pu) < n or len(wu) < n:
        return []
    where: dict[tuple[str, ...], list[int]] = {}
    for i in range(len(wu) - n + 1):
        where.setdefault(tuple(wu[i:i + n]), []).append(i)
    out: list[tuple[tuple[int, int], tuple[int, int]]] = []
    i = 0
    while i <= len(pu) - n:
        starts = where.get(tuple(pu[i:i + n]))
        if not starts:
            i += 1
            continue
        best_len, best_j = 0, starts[0]
        for j in starts[:32]:
            k = 0
            while i + k < len(pu) and j + k < len(wu) and pu[i + k] == wu[j + k]:
                k += 1
            if k > best_len:
                best_len, best_j = k, j
        if best_len >= min_units:
            out.append(((ps[i][0], ps[i + best_len - 1][1]),
                        (ws[best_j][0], ws[best_j + best_len - 1][1])))
        i += max(best_len, 1)
    return out
