"""CONNECTED groups: the connected components of the pairs at or above the threshold.

A chain A-B-C is one group even when A and C are not alike; ``weakest`` is the smallest pair
score on a maximum spanning tree of the group -- the weakest link holding it together, which
is also the highest threshold at which the group would still be one piece.

SciPy does the work: a maximum spanning forest (after cheaply dropping edges that are the
weakest on a cycle) gives both the components and each one's weakest link. A member need not
be linked to the reference; its score against the reference (for ordering) comes from the
edge when there is one and from ``pair_scores`` otherwise, one call per group that needs it.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import minimum_spanning_tree

from neardup_core.grouping.edges import (
    FlatLayout,
    PairScores,
    components,
    flat_layout,
    flat_members,
    graph,
)
from neardup_core.threadwork import side_by_side

#: Below this many edges the maximum spanning forest is computed without pre-filtering.
MST_FILTER_MIN_EDGES = 65536


def _scores_to_reference(n_docs: int, a: np.ndarray, b: np.ndarray, s: np.ndarray,
                         ref_of: np.ndarray) -> np.ndarray:
    """Per document, its edge score to its group's reference (NaN when not linked directly)."""
    sref = np.full(n_docs, np.nan, dtype=np.float64)
    sv = s.astype(np.float64)
    m = np.flatnonzero(ref_of[a] == a)
    np.fmax.at(sref, b[m], sv[m])  # a repeated pair counts with its strongest score
    m = np.flatnonzero(ref_of[b] == b)
    np.fmax.at(sref, a[m], sv[m])
    return sref


def _fill_missing(docs: np.ndarray, ref_doc: np.ndarray, sref: np.ndarray,
                  pair_scores: PairScores) -> None:
    """Ask ``pair_scores`` for members not linked to their reference, all in one call
    (``pair_scores`` takes an array of references as long as the array of members)."""
    missing = np.flatnonzero(np.isnan(sref[docs]) & (ref_doc != docs))
    if not missing.size:
        return
    md = docs[missing]
    sref[md] = np.asarray(pair_scores(ref_doc[missing], md)[0], dtype=np.float64)


def _drop_cycle_edges(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Remove edges that no maximum spanning forest uses, cheaply, before the MST's own sort.

    An edge whose ends are already joined by stronger edges is the weakest on a cycle, so no
    maximum spanning forest needs it (the filter step of filter-Kruskal). The strongest ~2n
    edges (average degree 4, enough to join most of a dense graph) are kept; of the others only
    those between different pieces of them survive. On 10^6 pairs over 10^5 documents that
    leaves about a quarter of the edges for the exact MST; sparse graphs skip the step.
    """
    if s.size < max(MST_FILTER_MIN_EDGES, 4 * n):
        return a, b, s
    kth = s.size - min(s.size // 2, 2 * n)
    cut = np.partition(s, kth)[kth]
    strong = np.flatnonzero(s > cut)  # strictly stronger: ties at the cut stay weak
    if not strong.size:
        return a, b, s
    _, lab = components(n, a[strong], b[strong])
    cross = np.flatnonzero(lab[a] != lab[b])  # never a strong edge: those join one piece
    keep = np.zeros(s.size, dtype=bool)
    keep[strong] = True
    keep[cross] = True
    keep = np.flatnonzero(keep)
    return a[keep], b[keep], s[keep]  # still in input order: rows stay sorted


def max_spanning_forest(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges (a, b, score) of a maximum spanning forest of the edges (scores in [0, 1]):
    at any threshold, the components of the edges at or above it are those of the forest's
    edges at or above it."""
    fa, fb, fs = _drop_cycle_edges(n, a, b, s)
    forest = minimum_spanning_tree(graph(n, fa, fb, 2.0 - fs.astype(np.float64)),
                                   overwrite=True).tocoo()
    return forest.row.astype(np.int64), forest.col.astype(np.int64), 2.0 - forest.data


def connected_groups(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, pair_scores: PairScores,
                     order: np.ndarray, pos: np.ndarray,
                     forest: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                     parts: tuple[int, np.ndarray] | None = None, *, parallel: bool = False
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """CONNECTED groups of the edges (checked, no loops) as
    :func:`~neardup_core.grouping.edges.assemble_flat` gives them; ``order``/``pos`` are the
    documents in rank order and each one's place in it.

    ``forest``: the edges of a maximum spanning forest of these edges (as
    :func:`max_spanning_forest` gives them), when the caller has one: its edges are then the
    components and the weakest links, and none is computed here (a regroup's forest serves
    every threshold: the forest's edges at or above a threshold span the edges at or above
    it, with the same weakest links). ``parts``: with ``forest``, its components (as
    :func:`~neardup_core.grouping.edges.components` gives them), when the caller has them
    (:class:`~neardup_core.grouping.forest.RootedForest`: under half the search's time).
    ``parallel``: the groups' order and places, and their weakest links, may be computed
    beside the members' scores read off their edges to their references
    (:func:`~neardup_core.threadwork.side_by_side`); the scores of the members not linked to
    theirs come from ``pair_scores`` after, which may take two threads itself."""
    if forest is None:
        # Maximum spanning forest = minimum one over 2 - score (in [1, 2]: no weight is zero,
        # which csgraph would read as "no edge"); its trees are the components, and the
        # smallest score on each tree is the group's weakest link.
        forest = max_spanning_forest(n, a, b, s)
    ta, tb, tw = forest
    ncomp, label = components(n, ta, tb) if parts is None else parts
    size = np.bincount(label, minlength=ncomp)
    # each group's reference: its best-ranked document, found with no sort (the flat assembly
    # orders the members; sorting them by component first as well cost a CONNECTED jump at
    # 10^6 documents 30 ms)
    docs = np.flatnonzero(size[label] >= 2)
    lab = label[docs]
    best = np.full(ncomp, n, dtype=np.int64)
    np.minimum.at(best, lab, pos[docs])
    comp_ref = np.full(ncomp, -1, dtype=np.int64)
    grouped = best < n
    comp_ref[grouped] = order[best[grouped]]
    ref_of = np.full(n, -1, dtype=np.int64)
    ref_of[docs] = comp_ref[lab]
    doc_ref = ref_of[docs]

    def layout() -> tuple[FlatLayout, np.ndarray]:
        weak = np.full(ncomp, np.inf)
        np.minimum.at(weak, label[ta], tw)
        return flat_layout(n, docs, lab, docs == doc_ref, size, comp_ref), weak

    (placed, weak), sref = side_by_side(
        layout, lambda: _scores_to_reference(n, a, b, s, ref_of), parallel=parallel)
    _fill_missing(docs, doc_ref, sref, pair_scores)  # (on two threads itself, when it may)
    return flat_members(n, placed, sref[docs], weak)
