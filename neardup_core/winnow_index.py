"""The heavy units of the excerpt candidate search: the posting lists of one range of winnowed
hash values, and the candidate pairs of one group of documents; and the exact check of
candidates on their shingle sets (:func:`verified_rows`), which the workers run too.

:mod:`neardup_core.pairs.containment` plans the search and says why it is built this way; the
units are here, apart from it, because the scan's worker processes run them
(:mod:`neardup_core.procwork`) and a worker may not import the pair search (the import-linter
contract "Scan workers stay light", pyproject.toml): this module needs NumPy only. Each unit
reads its big inputs by name from ``arrays``: a dict of this process's arrays when it runs on
threads, or :class:`~neardup_core.procwork.SharedArrays` (files mapped read-only) in a worker,
and returns a small part of the answer. The units are independent, so the answer is the same
whatever runs them, in whatever order.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["CANDIDATE_MIN", "MAX_POSTINGS", "MIN_SHINGLES", "PairPlan", "common_count",
           "pass_candidates", "range_postings", "saved_range_postings", "verified_rows"]

#: Winnowed containment a pair needs to be verified: well below EXCERPT_FLOOR, since the winnowed
#: estimate loses the windows at the edges of each shared passage and is a sample.
CANDIDATE_MIN = 0.2
#: Documents a winnowed hash may be in and still pair them.
MAX_POSTINGS = 64
#: Distinct shingles a part needs (about 50 words or CJK characters: a few lines).
MIN_SHINGLES = 50
#: Where the hash and the document sit in the two 32-bit halves of a packed 64-bit row (the
#: hash is the high half, so that rows sort by hash, then document).
_HI, _LO = (1, 0) if sys.byteorder == "little" else (0, 1)

#: What a unit reads its inputs from: a name's array (``values`` may instead be a function of
#: a block of documents, for sets held one array per document).
Arrays = Mapping[str, "np.ndarray | Callable[[int, int], np.ndarray]"]


def range_postings(arrays: Arrays, fill_docs: int, bounds: tuple[int, int]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The useful posting lists (2 to MAX_POSTINGS documents) of the hashes in
    ``bounds`` = [lo, hi) (hi at most 2**32): their documents (int32, ascending in a list),
    the lists of two documents first, then those of three, and so on, and how many lists
    there are of each length (index: the length).

    ``arrays``: ``values`` and ``offsets``, the winnowed sets end to end, and ``sizes``, 0
    for a document left out. The hashes are looked at a block of ``fill_docs`` documents at a
    time, once: where those in the range are is kept (4 bytes each), so that their (hash,
    document) rows are then written once, in place, and sorted packed in 64-bit words."""
    lo, hi = bounds
    sizes = arrays["sizes"]
    offsets = arrays["offsets"]
    values = arrays["values"]
    n = sizes.shape[0]
    blocks = range(0, n, fill_docs)

    def block(d0: int) -> tuple[np.ndarray, np.ndarray]:
        """The hashes of the block of documents from ``d0``, and where its documents start."""
        d1 = min(n, d0 + fill_docs)
        o0, o1 = int(offsets[d0]), int(offsets[d1])
        vals = values(d0, d1) if callable(values) else np.asarray(values[o0:o1])
        return vals, np.asarray(offsets[d0:d1 + 1]) - o0

    picked: list[tuple[int, np.ndarray]] = []
    count = 0
    for d0 in blocks:  # one look at each block: where its hashes in the range are
        vals, starts = block(d0)
        if vals.shape[0] == 0:
            continue
        sel = (vals >= lo) & (vals < hi) if hi < (1 << 32) else vals >= lo
        kept = np.asarray(sizes[d0:d0 + starts.shape[0] - 1]) > 0
        if not kept.all():
            sel &= np.repeat(kept, np.diff(starts))
        at = np.flatnonzero(sel).astype(np.int32)  # a block's hashes fit 31 bits
        if at.shape[0]:
            picked.append((d0, at))
            count += at.shape[0]
    none = (np.empty(0, np.int32), np.zeros(MAX_POSTINGS + 1, np.int64))
    if count == 0:
        return none
    packed = np.empty(count, np.uint64)
    halves = packed.view(np.uint32).reshape(count, 2)
    row = 0
    for d0, at in picked:
        vals, starts = block(d0)
        c = at.shape[0]
        # the document of each: the last of the block's documents to start at or before it
        halves[row:row + c, _LO] = np.searchsorted(starts, at, side="right") - 1 + d0
        halves[row:row + c, _HI] = vals[at]
        row += c
    del picked
    packed.sort()  # by hash, then document
    hashes = halves[:, _HI]
    new = np.empty(count, bool)
    new[0] = True
    np.not_equal(hashes[1:], hashes[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    del new
    lens = np.diff(starts, append=np.int64(count))
    useful = (lens >= 2) & (lens <= MAX_POSTINGS)
    starts, lens = starts[useful], lens[useful]
    if lens.shape[0] == 0:
        return none
    # lists by length (stable: in hash order within a length), each list's documents in turn
    order = np.argsort(lens, kind="stable")
    starts, lens = starts[order], lens[order]
    first = np.cumsum(lens) - lens
    at_doc = np.repeat(starts - first, lens) + np.arange(int(lens.sum()))
    doc = halves[:, _LO][at_doc].view(np.int32)  # documents fit 31 bits
    return doc, np.bincount(lens, minlength=MAX_POSTINGS + 1).astype(np.int64)


def saved_range_postings(arrays: Arrays, fill_docs: int, bounds: tuple[int, int]
                         ) -> tuple[str, np.ndarray]:
    """:func:`range_postings` in a worker process: the documents of the lists are left in
    the shared folder (``arrays`` is :class:`~neardup_core.procwork.SharedArrays`) under the
    name returned, for the pair counts to read there; only the counts of lists come back."""
    doc, lists = range_postings(arrays, fill_docs, bounds)
    name = f"postings-{bounds[0]}"
    arrays.save(name, doc)  # type: ignore[attr-defined]
    return name, lists


@dataclass(frozen=True, slots=True)
class PairPlan:
    """How the pairs of the index are counted (see
    :func:`neardup_core.pairs.containment.candidates`); ``groups`` is a power of two.

    ``blocks``: (start, length, lists) of each run of posting lists of one length in
    ``arrays["rows"]``; ``n`` documents. A pair belongs to the pass ``first % (groups *
    passes)`` of its first (lower) document; a unit counts the ``passes`` passes of one group
    (``first % groups``) one after another, each ``slices`` slices (by the second document),
    making at most ``chunk_rows`` pair rows at once."""

    blocks: tuple[tuple[int, int, int], ...]
    n: int
    groups: int
    passes: int
    chunk_rows: int
    slices: int


def pass_candidates(arrays: Arrays, plan: PairPlan, group: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(part, whole, winnowed containment) of the candidates among the pairs whose first
    document is ``group`` modulo ``plan.groups``, unsorted.

    ``arrays``: ``rows``, the posting lists as ``plan.blocks`` lay them out, and the
    documents' ``shingles`` and ``sizes`` (winnowed set sizes, 0 for one left out). The
    group's entries (a document of a list and how many follow it there) are picked once, a
    list's worth of bytes each; then each pass makes only its own pair rows from them, so a
    pass costs its pairs, not the whole index again."""
    rows = arrays["rows"]
    g, groups, passes = group, plan.groups, plan.passes
    firsts, bases, counts = [], [], []
    for start, s, lists in plan.blocks:
        step = max(1, plan.chunk_rows // s)
        for c0 in range(0, lists, step):
            c1 = min(lists, c0 + step)
            head = np.asarray(rows[start + c0 * s:start + c1 * s]).reshape(c1 - c0, s)[:, :-1]
            if groups > 1:  # a power of two
                r, c = np.nonzero(head & (groups - 1) == g)
            else:
                r, c = np.divmod(np.arange(head.size), s - 1)
            firsts.append(head[r, c])
            bases.append(start + (c0 + r) * s + c + 1)  # where the entries after it start
            counts.append((s - 1 - c).astype(np.int8))
    empty = (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float32))
    if not firsts:
        return empty
    first_all = np.concatenate(firsts).astype(np.int64)
    base_all = np.concatenate(bases)
    count_all = np.concatenate(counts)
    del firsts, bases, counts
    which = (first_all // groups) % passes if passes > 1 else None
    found = []
    for sub in range(passes):
        if which is None:
            f, b, k = first_all, base_all, count_all
        else:
            mine = which == sub
            f, b, k = first_all[mine], base_all[mine], count_all[mine]
        found.extend(_pass_counts(rows, arrays, plan, g + groups * sub, f, b, k))
    found = [x for x in found if x[0].shape[0]]
    if not found:
        return empty
    return tuple(np.concatenate(col) for col in zip(*found, strict=True))  # type: ignore[return-value]


def _pass_counts(rows: np.ndarray, arrays: Arrays, plan: PairPlan, p: int, first: np.ndarray,
                 base: np.ndarray, count: np.ndarray
                 ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The candidates of pass ``p``: its entries' ``first`` documents, where the documents
    after each start in ``rows`` (``base``) and how many there are (``count``).

    Within a slice of a pass a pair is known by (first // P, second // slices), P the passes
    of every group, which fits 32 bits unless the folder has hundreds of thousands of
    documents: its key then takes half the memory of a 64-bit one (first * n + second, used
    past that size)."""
    n, slices = plan.n, plan.slices
    every = plan.groups * plan.passes
    span = -(-n // slices)  # values of second // slices
    narrow = -(-n // every) * span <= 1 << 32
    kind = np.uint32 if narrow else np.int64
    made: list[list[np.ndarray]] = []
    cum = np.cumsum(count, dtype=np.int64)
    e0, total = 0, count.shape[0]
    while e0 < total:
        done = int(cum[e0 - 1]) if e0 else 0
        e1 = max(e0 + 1, int(np.searchsorted(cum, done + plan.chunk_rows, side="right")))
        k = count[e0:e1].astype(np.int64)
        rows_here = int(cum[e1 - 1]) - done
        one = np.repeat(first[e0:e1], k)
        at = np.repeat(base[e0:e1] - (np.cumsum(k) - k), k) + np.arange(rows_here)
        two = np.asarray(rows[at]).astype(np.int64)
        del at
        where = (two % slices).astype(np.uint8)
        if narrow:
            one //= every
            one *= span
            one += two // slices
            key = one.astype(np.uint32)
        else:
            one *= n
            one += two
            key = one
        del one, two
        order = np.argsort(where, kind="stable")  # a radix sort: one pass, not one a slice
        cuts = np.cumsum(np.bincount(where, minlength=slices))[:-1]
        made.append(np.split(key[order], cuts))
        e0 = e1
    shingles, sizes = arrays["shingles"], arrays["sizes"]
    out = []
    for q in range(slices):
        keys = np.concatenate([np.empty(0, kind), *(m[q] for m in made)])
        for m in made:
            m[q] = keys[:0]  # each slice's rows are held once
        if not keys.shape[0]:
            continue
        keys, shared = _run_counts(keys)
        keys = keys.astype(np.int64)
        if narrow:
            a, b = (keys // span) * every + p, (keys % span) * slices + q
        else:
            a, b = keys // n, keys % n
        out.append(_estimates(a, b, shared, shingles, sizes))
    return out


def _run_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``keys`` and how often each occurs (a sort and a scan: np.unique's counts
    cost an extra pass)."""
    keys.sort()
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[first], np.diff(np.r_[first, keys.shape[0]])


def _estimates(a: np.ndarray, b: np.ndarray, shared: np.ndarray, shingles: np.ndarray,
               sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs (a, b) sharing ``shared`` winnowed hashes that are candidates: (part, whole,
    estimate)."""
    sa, sb = np.asarray(shingles[a]), np.asarray(shingles[b])
    a_part = sa <= sb
    part = np.where(a_part, a, b)
    whole = np.where(a_part, b, a)
    est = (shared / np.maximum(np.asarray(sizes[part]), 1)).astype(np.float32)
    ok = (est >= CANDIDATE_MIN) & (np.where(a_part, sa, sb) >= MIN_SHINGLES)
    return part[ok], whole[ok], est[ok]


def verified_rows(part: Sequence[int], whole: Sequence[int],
                  shingle_set: Callable[[int], np.ndarray | None], floor: float
                  ) -> list[tuple[int, int, float, float]]:
    """(part, whole, exact containment, exact Jaccard) of the candidates whose containment
    reaches ``floor``, in the candidates' order (see
    :func:`neardup_core.pairs.containment.verify`, which sorts them). ``shingle_set(i)``:
    document ``i``'s sorted distinct shingle hashes, None when it could not be read again
    (its pairs are dropped); asked for once a candidate end."""
    out: list[tuple[int, int, float, float]] = []
    for p, w in zip(part, whole, strict=True):
        sp, sw = shingle_set(p), shingle_set(w)
        if sp is None or sw is None or sp.shape[0] < MIN_SHINGLES:
            continue
        if sw.shape[0] < sp.shape[0]:  # the part is the shorter text by its shingle set
            p, w, sp, sw = w, p, sw, sp
        inter = common_count(sp, sw)
        c = inter / sp.shape[0]
        if c >= floor:
            out.append((p, w, c, inter / (sp.shape[0] + sw.shape[0] - inter)))
    return out


def common_count(a: np.ndarray, b: np.ndarray) -> int:
    """How many values two sorted sets of distinct values share: each of ``a`` looked up in
    ``b`` (np.intersect1d sorts both again, several times the time)."""
    if not a.shape[0] or not b.shape[0]:
        return 0
    at = np.searchsorted(b, a)
    np.minimum(at, b.shape[0] - 1, out=at)
    return int(np.count_nonzero(b[at] == a))
