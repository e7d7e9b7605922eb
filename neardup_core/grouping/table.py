"""A result's groups as one flat table: the edges a grouping reads, the mode's groups, and the
columns the views show (score, distance and Jaccard against the reference, weakest, exact).

:class:`~neardup_core.result.ScanResult` keeps the data and caches the table; the logic is
here, on arrays, so that it can be read (and tested) without a result. Three things happen
to the scan's pairs before a mode groups them: user-chosen references are linked to the
documents two pairs away (:func:`with_reference_links`), pairs the user marked as not
duplicates are dropped (:func:`ignored_mask`), and STRICT groups texts, not files
(:func:`strict_by_text`).
"""

from __future__ import annotations

import numpy as np

from neardup_core.grouping.cohesive import COHESIVE_SAMPLES, cohesion_floor, cohesive_groups
from neardup_core.grouping.edges import PairScores, within_two_pairs
from neardup_core.grouping.groups import build_groups
from neardup_core.models import GroupMode, GroupTable, PairTable
from neardup_core.pairs.scoring import hamming


def with_reference_links(n: int, pairs: PairTable, references: tuple[tuple[int, ...], ...],
                         pair_scores: PairScores, a: np.ndarray, b: np.ndarray, s: np.ndarray,
                         at_least: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges plus each user-chosen reference scored against the documents two pairs
    away from it (those at ``at_least`` or more, not already an edge).

    In a folder of near-copies of one template, crowded LSH buckets are linked around the
    reference the scan ranked first, not pair by pair; a reference the user picks instead
    has few links of its own, and STRICT groups (and large COHESIVE ones) are read from the
    reference's links. Two pairs away reaches every copy through the first reference.
    """
    chosen = np.unique(np.fromiter((d for refs in references for d in refs), dtype=np.int64))
    left, right = within_two_pairs(n, pairs.a, pairs.b, chosen)
    if not left.size:
        return a, b, s
    score = pair_scores(left, right)[0].astype(np.float32)
    keep = score >= np.float32(at_least)
    lo = np.minimum(left[keep], right[keep])
    hi = np.maximum(left[keep], right[keep])
    is_chosen = np.zeros(n, dtype=bool)
    is_chosen[chosen] = True
    touch = is_chosen[a] | is_chosen[b]  # the edges that can repeat a new one
    known = np.sort(np.minimum(a[touch], b[touch]).astype(np.int64) * n
                    + np.maximum(a[touch], b[touch]))
    codes = lo * n + hi
    at = np.minimum(np.searchsorted(known, codes), max(known.size - 1, 0))
    new = known[at] != codes if known.size else np.ones(codes.size, dtype=bool)
    if not new.any():
        return a, b, s
    return (np.concatenate([a, lo[new].astype(a.dtype)]),
            np.concatenate([b, hi[new].astype(b.dtype)]),
            np.concatenate([s, score[keep][new].astype(s.dtype)]))


def ignored_mask(n: int, a: np.ndarray, b: np.ndarray,
                 ignored: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Which pairs (a, b) are among the ``ignored`` pairs (index arrays), in either order."""
    x, y = ignored
    if not x.size:
        return np.zeros(a.shape[0], dtype=bool)
    keys = np.minimum(x, y) * n + np.maximum(x, y)
    lo = np.minimum(a, b).astype(np.int64)
    hi = np.maximum(a, b).astype(np.int64)
    return np.isin(lo * n + hi, keys)


def group_table(n: int, pairs: PairTable, threshold: float, mode: GroupMode,
                auto_rank: np.ndarray, text_class: np.ndarray, simhash: np.ndarray,
                pair_scores: PairScores, *, minhash_slots: int, link_floor: float,
                references: tuple[tuple[int, ...], ...] = (),
                ignored: tuple[np.ndarray, np.ndarray] | None = None) -> GroupTable:
    """The groups of ``n`` documents at ``threshold`` and ``mode`` as flat arrays.

    ``auto_rank`` ranks the documents as references (lowest first), before the user's
    ``references`` (newest choice first) outrank it; ``text_class`` is equal exactly for equal
    texts; ``pair_scores`` scores pairs the edges do not hold. ``minhash_slots`` is the number
    of MinHash values behind a score (0 when SimHash scores: then Jaccard is not known and
    COHESIVE takes :data:`~neardup_core.grouping.cohesive.COHESIVE_SAMPLES`).
    ``link_floor`` is the loosest threshold the pairs were kept down to (COHESIVE links a
    chosen reference down to it). ``ignored`` pairs (index arrays) never count as edges.
    """
    cohesive = mode == GroupMode.COHESIVE
    if cohesive:
        floor = cohesion_floor(threshold, minhash_slots or COHESIVE_SAMPLES)
        # every known score, not only the links: each one spares a pair_scores call
        a, b, s = pairs.a, pairs.b, pairs.score
    else:
        keep = pairs.score >= np.float32(threshold)
        a, b, s = pairs.a[keep], pairs.b[keep], pairs.score[keep]
    if references:
        a, b, s = with_reference_links(n, pairs, references, pair_scores, a, b, s,
                                       link_floor if cohesive else threshold)
    if ignored is not None:
        drop = ignored_mask(n, a, b, ignored)
        a, b, s = a[~drop], b[~drop], s[~drop]
    rank = auto_rank.copy()
    for pos, chosen in enumerate(references):
        # user-chosen references outrank every automatic preference, newest choice first
        rank[list(chosen)] = -1 - pos
    cls = text_class
    if mode == GroupMode.STRICT:
        flat, offsets, score, weakest = strict_by_text(n, a, b, s, rank, cls, threshold,
                                                       pair_scores)
        sizes = np.diff(offsets)
    elif cohesive:
        flat, offsets, score, weakest = cohesive_groups(
            n, a, b, s, threshold, floor, pair_scores, rank, text_class=cls, ignored=ignored)
        sizes = np.diff(offsets)
    else:
        members, weakest, score = build_groups(n, a, b, s, threshold, mode, pair_scores, rank,
                                               with_scores=True)
        sizes = np.fromiter((m.shape[0] for m in members), dtype=np.int64, count=len(members))
        offsets = np.zeros(len(members) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        flat = np.concatenate(members).astype(np.int64) if members else np.empty(0, np.int64)
    refs = np.repeat(flat[offsets[:-1]], sizes)
    # Scores come from the grouping (edges, or pair_scores for members not linked to their
    # reference); distance is a cheap popcount. Jaccard is the score itself when MinHash is
    # the scorer, and not known with SimHash alone.
    score = np.asarray(score, dtype=np.float32)
    score[cls[flat] == cls[refs]] = 1.0

    dist = hamming(simhash[flat], simhash[refs])
    jac = score.copy() if minhash_slots else np.full(flat.shape[0], np.nan, dtype=np.float32)
    same = cls[flat] == cls[refs]
    exact = np.logical_and.reduceat(same, offsets[:-1]) if flat.size else \
        np.zeros(0, dtype=bool)
    return GroupTable(offsets=offsets, members=flat, similarity=score, distance=dist,
                      jaccard=jac, weakest=np.asarray(weakest, dtype=np.float32), exact=exact)


def strict_by_text(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, rank: np.ndarray,
                   text_class: np.ndarray, threshold: float, pair_scores: PairScores
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """STRICT grouping over texts, not files: exact copies are one node (led by their
    best-ranked file), so a group never keeps a reference's identical twin out.

    Returns (members flat, offsets, score against the reference, weakest per group).
    """
    cls = text_class
    ncls = int(cls.max()) + 1 if n else 0
    # leader of each class: best rank, then lowest index
    order = np.lexsort((np.arange(n), rank, cls))
    first = np.ones(n, dtype=bool)
    first[1:] = cls[order[1:]] != cls[order[:-1]]
    leader = np.empty(ncls, dtype=np.int64)
    leader[cls[order[first]]] = order[first]
    la, lb = leader[cls[a]], leader[cls[b]]
    real = la != lb
    groups, weakest, score = build_groups(n, la[real], lb[real], s[real], threshold,
                                          GroupMode.STRICT, pair_scores, rank,
                                          with_scores=True)
    g_of = np.full(n, -1, dtype=np.int64)      # group of each leader
    s_of = np.zeros(n, dtype=np.float64)       # its score against the group's reference
    is_ref = np.zeros(n, dtype=bool)
    flat_l = np.concatenate(groups).astype(np.int64) if groups else np.empty(0, np.int64)
    sizes = np.fromiter((g.shape[0] for g in groups), dtype=np.int64, count=len(groups))
    g_of[flat_l] = np.repeat(np.arange(len(groups)), sizes)
    s_of[flat_l] = np.asarray(score, dtype=np.float64)
    if flat_l.size:
        is_ref[flat_l[np.r_[0, np.cumsum(sizes)[:-1]]]] = True
    weak = list(np.asarray(weakest, dtype=np.float64))
    # classes with copies whose leader is in no group form exact groups of their own
    csize = np.bincount(cls, minlength=ncls)
    lone = np.flatnonzero((csize >= 2) & (g_of[leader] < 0))
    if lone.size:
        g_of[leader[lone]] = len(weak) + np.arange(lone.size)
        s_of[leader[lone]] = 1.0
        is_ref[leader[lone]] = True
        weak.extend([1.0] * lone.size)
    docs = np.flatnonzero(g_of[leader[cls]] >= 0)
    lead = leader[cls[docs]]
    grp = g_of[lead]
    doc_score = np.where(is_ref[lead], 1.0, s_of[lead])
    # reference first, then its copies, then by descending score, then index
    key_ref = ~(docs == lead) | ~is_ref[lead]
    key_copy_of_ref = ~is_ref[lead]
    o = np.lexsort((docs, -doc_score, key_copy_of_ref, key_ref, grp))
    flat, grp, doc_score = docs[o], grp[o], doc_score[o]
    counts = np.bincount(grp, minlength=len(weak))
    # order groups as build_groups does: largest first, then by reference index
    offs = np.zeros(len(weak) + 1, dtype=np.int64)
    np.cumsum(counts, out=offs[1:])
    refs = flat[offs[:-1]] if flat.size else np.empty(0, np.int64)
    gorder = np.lexsort((refs, -counts))
    parts = [np.arange(offs[g], offs[g + 1]) for g in gorder.tolist()]
    take = np.concatenate(parts) if parts else np.empty(0, np.int64)
    new_offs = np.zeros(len(weak) + 1, dtype=np.int64)
    np.cumsum(counts[gorder], out=new_offs[1:])
    return (flat[take], new_offs, doc_score[take].astype(np.float32),
            np.asarray(weak, dtype=np.float32)[gorder])
