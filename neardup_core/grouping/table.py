"""A result's groups as one flat table: the edges a grouping reads, the mode's groups, and the
columns the views show (score, distance and Jaccard against the reference, weakest, exact).

:class:`~neardup_core.result.ScanResult` keeps the data and caches the table; the logic is
here, on arrays, so that it can be read (and tested) without a result. Three things happen
to the scan's pairs before a mode groups them: user-chosen references are linked to the
documents two pairs away (:func:`reference_candidates`), pairs the user marked as not
duplicates are dropped (:func:`ignored_mask`), and STRICT groups texts, not files
(:func:`strict_by_text`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from neardup_core.arrays import renumbered_order, renumbered_pairs, renumbering
from neardup_core.grouping.cohesive import (
    COHESIVE_SAMPLES,
    CohesiveNodes,
    cohesion_floor,
    cohesive_groups,
    cohesive_nodes,
)
from neardup_core.grouping.edges import (
    PairScores,
    dense_rank,
    group_order,
    member_order,
    unique_edges,
    within_two_pairs,
)
from neardup_core.grouping.groups import flat_groups, rank_positions
from neardup_core.grouping.strict import strict_members
from neardup_core.models import GroupMode, GroupTable, PairTable
from neardup_core.pairs.scoring import hamming
from neardup_core.threadwork import side_by_side


def reference_candidates(n: int, pairs: PairTable, references: tuple[tuple[int, ...], ...],
                         pair_scores: PairScores, at_least: float
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, hi, score) of each user-chosen reference against the documents two pairs away
    from it, those scoring ``at_least`` or more (repeats of the scan's pairs included).

    In a folder of near-copies of one template, crowded LSH buckets are linked around the
    reference the scan ranked first, not pair by pair; a reference the user picks instead
    has few links of its own, and STRICT groups (and large COHESIVE ones) are read from the
    reference's links. Two pairs away reaches every copy through the first reference.
    """
    chosen = np.unique(np.fromiter((d for refs in references for d in refs), dtype=np.int64))
    left, right = within_two_pairs(n, pairs.a, pairs.b, chosen)
    if not left.size:
        return left, right, np.empty(0, dtype=np.float32)
    score = pair_scores(left, right)[0].astype(np.float32)
    keep = score >= np.float32(at_least)
    return (np.minimum(left[keep], right[keep]), np.maximum(left[keep], right[keep]),
            score[keep])


def _pair_score_of(n: int, pairs: PairTable, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The scan's score of each pair (lo, hi) (the strongest of repeats); -inf when the scan
    has no such pair."""
    a, b = pairs.a.astype(np.int64), pairs.b.astype(np.int64)
    codes = np.minimum(a, b) * n + np.maximum(a, b)
    order = np.lexsort((pairs.score, codes))  # by code, the strongest last
    known, best = codes[order], pairs.score[order]
    want = lo * n + hi
    at = np.searchsorted(known, want, side="right") - 1
    found = (at >= 0) & (known[np.maximum(at, 0)] == want) if known.size else \
        np.zeros(want.size, dtype=bool)
    out = np.full(want.size, -np.inf, dtype=np.float32)
    out[found] = best[at[found]]
    return out


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


@dataclass(frozen=True)
class GroupingInputs:
    """What a grouping reads that the threshold does not change: computed once for a result's
    mode, references and ignored pairs, then grouped at any threshold (:func:`groups_at`).

    ``a``/``b``/``s`` are every edge a threshold may keep, the scan's pairs first, then the
    chosen references' links (less the ignored pairs). CONNECTED and STRICT keep an edge at
    ``t`` when ``s >= t`` and ``shadow < t``: a reference's link is new only where the scan's
    own pair (its score is the shadow; -inf for the scan's pairs and links it does not have)
    is below the threshold. COHESIVE reads them all (``shadow`` None): each known score
    spares a ``pair_scores`` call.
    """

    n: int
    mode: GroupMode
    a: np.ndarray
    b: np.ndarray
    s: np.ndarray
    shadow: np.ndarray | None
    rank: np.ndarray
    text_class: np.ndarray
    simhash: np.ndarray
    pair_scores: PairScores
    minhash_slots: int
    ignored: tuple[np.ndarray, np.ndarray] | None
    #: COHESIVE: what it reads that the threshold does not change (sorted once)
    nodes: CohesiveNodes | None = None

    @cached_property
    def leaders(self) -> np.ndarray:
        """Per class of equal texts, its best-ranked document (STRICT's node for the class):
        the same at every threshold."""
        return class_leaders(self.rank, self.text_class)

    @cached_property
    def text_edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """STRICT's edges between texts, the same at every threshold: one per two texts
        (their leaders, lower first), the strongest score of their files' pairs; a
        threshold keeps those at or above it. A STRICT jump at 10^6 documents mapped every
        kept pair to its texts and sorted them again (a third of a 0.36 s jump); prepared
        once (:meth:`~neardup_core.grouping.regroup.Regrouper.prepare`), each move only
        filters. None when chosen references' links weigh differently on either side of
        their pair's score (``shadow``): a threshold then keeps other pairs than its
        scores alone say."""
        if self.shadow is not None and bool(np.isfinite(self.shadow).any()):
            return None
        return text_edges(self.n, self.a, self.b, self.s, self.leaders[self.text_class])

    @cached_property
    def scored_otherwise(self) -> np.ndarray:
        """Per edge, whether ``pair_scores`` scores its two documents otherwise than ``s``
        does: the same at every threshold. A CONNECTED member's score against its reference
        is its edge's when it has one there and ``pair_scores``'s otherwise, so a move that
        gives a reference such an edge, or takes one away, changes that member's score
        (:meth:`~neardup_core.grouping.regroup.Regrouper.dirty`). Each move scored its band's
        edges at references again: 10-30 ms of MinHash rows in a long jump at 10^6
        documents. Where the scan scored the pairs with the same MinHash signatures, none
        differ; prepared once (:meth:`~neardup_core.grouping.regroup.Regrouper.edge_tables`),
        a move only reads it."""
        got = np.asarray(self.pair_scores(self.a, self.b)[0], dtype=np.float64)
        return got != self.s

    @cached_property
    def ranked(self) -> tuple[np.ndarray, np.ndarray]:
        """The documents in rank order and each one's place in it: the same at every
        threshold, sorted once (a twentieth of a second at a million documents)."""
        return rank_positions(self.rank)

    def restrict(self, docs: np.ndarray, *, parallel: bool = False) -> GroupingInputs:
        """The same inputs for the documents ``docs`` (sorted) alone, renumbered 0..k-1 in
        their order: rank order and index order are kept, so whenever ``docs`` is a union of
        the groups' components their groups come out as in the whole (mapped through
        ``docs``). ``parallel``: COHESIVE's nodes are restricted beside the rest
        (:func:`~neardup_core.threadwork.side_by_side`)."""
        nodes = self.nodes
        if nodes is None:
            return self._restricted(docs)
        sub_nodes, sub = side_by_side(lambda: nodes.restrict(docs),
                                      lambda: self._restricted(docs), parallel=parallel)
        object.__setattr__(sub, "nodes", sub_nodes)  # (frozen, but new: no one has seen it)
        return sub

    def _restricted(self, docs: np.ndarray) -> GroupingInputs:
        """:meth:`restrict` but for the COHESIVE nodes (left None)."""
        k = docs.shape[0]
        new = renumbering(self.n, docs)
        na, nb, sel = renumbered_pairs(self.a, self.b, new)
        sel = np.flatnonzero(sel)
        ignored = None
        if self.ignored is not None:
            ia, ib, both = renumbered_pairs(*self.ignored, new)
            ignored = (ia[both], ib[both])
        outer = self.pair_scores

        def pair_scores(ref: int | np.ndarray, others: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            return outer(docs[np.asarray(ref, dtype=np.int64)],
                         docs[np.asarray(others, dtype=np.int64)])

        cls = dense_rank(self.text_class[docs])[1]
        sub = GroupingInputs(
            k, self.mode, na[sel], nb[sel], self.s[sel],
            None if self.shadow is None else self.shadow[sel], self.rank[docs], cls,
            self.simhash[docs], pair_scores, self.minhash_slots, ignored, None)
        # What is kept of the whole's order is the part's too, without a sort: the order
        # restricted to ``docs``, and (when every copy of a text is among them) the same leaders
        kept = self.__dict__.get("ranked")
        if kept is not None:
            sub.__dict__["ranked"] = renumbered_order(kept[0], new)
        kept_leaders = self.__dict__.get("leaders")
        if kept_leaders is not None:
            lead = new[kept_leaders[self.text_class[docs]]]
            if bool((lead >= 0).all()):
                leaders = np.empty(int(cls.max()) + 1 if k else 0, dtype=np.int64)
                leaders[cls] = lead
                sub.__dict__["leaders"] = leaders
        return sub


def text_edges(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, lead: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs (a, b) as pairs of their texts' leaders ``lead`` (per document): (lo, hi,
    strongest score), one per two texts, none within a text (:func:`unique_edges`)."""
    la, lb = lead[a], lead[b]
    real = np.flatnonzero(la != lb)
    return unique_edges(n, la[real], lb[real], s[real])


def grouping_inputs(n: int, pairs: PairTable, mode: GroupMode, auto_rank: np.ndarray,
                    text_class: np.ndarray, simhash: np.ndarray, pair_scores: PairScores, *,
                    minhash_slots: int, link_floor: float,
                    references: tuple[tuple[int, ...], ...] = (),
                    ignored: tuple[np.ndarray, np.ndarray] | None = None) -> GroupingInputs:
    """The :class:`GroupingInputs` of ``n`` documents (see :func:`group_table`); valid for
    thresholds from ``link_floor`` up."""
    mode = GroupMode(mode)
    cohesive = mode == GroupMode.COHESIVE
    a, b, s = pairs.a, pairs.b, pairs.score
    shadow = None if cohesive else np.full(s.shape[0], -np.inf, dtype=np.float32)
    if references:
        lo, hi, sc = reference_candidates(n, pairs, references, pair_scores, link_floor)
        known = _pair_score_of(n, pairs, lo, hi)
        if cohesive:  # every known score is an edge already: only pairs the scan has not
            new = known == -np.inf
            lo, hi, sc = lo[new], hi[new], sc[new]
        else:
            shadow = np.concatenate([shadow, known])
        a = np.concatenate([a, lo.astype(a.dtype)])
        b = np.concatenate([b, hi.astype(b.dtype)])
        s = np.concatenate([s, sc.astype(s.dtype)])
    if ignored is not None:
        drop = ignored_mask(n, a, b, ignored)
        if drop.any():
            a, b, s = a[~drop], b[~drop], s[~drop]
            shadow = None if shadow is None else shadow[~drop]
    rank = auto_rank.copy()
    for pos, chosen in enumerate(references):
        # user-chosen references outrank every automatic preference, newest choice first
        rank[list(chosen)] = -1 - pos
    nodes = cohesive_nodes(n, a, b, s, rank, text_class=text_class, ignored=ignored) \
        if cohesive else None
    return GroupingInputs(n, mode, a, b, s, shadow, rank, text_class, simhash, pair_scores,
                          minhash_slots, ignored if cohesive else None, nodes)


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
    inputs = grouping_inputs(n, pairs, mode, auto_rank, text_class, simhash, pair_scores,
                             minhash_slots=minhash_slots,
                             link_floor=(link_floor if mode == GroupMode.COHESIVE
                                         else min(link_floor, threshold)),
                             references=references, ignored=ignored)
    return groups_at(inputs, threshold)


def groups_at(inputs: GroupingInputs, threshold: float,
              unsettled: np.ndarray | None = None,
              forest: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
              parts: tuple[int, np.ndarray] | None = None, *,
              parallel: bool = False) -> GroupTable:
    """The groups of ``inputs`` at ``threshold`` (``unsettled``: see
    :func:`~neardup_core.grouping.cohesive.cohesive_groups`; COHESIVE alone sets it).
    ``forest``: CONNECTED only, a maximum spanning forest of all the edges of ``inputs``
    (:func:`~neardup_core.grouping.regroup.mode_graph`; without chosen references, whose
    links weigh differently on either side of their pair's score), kept by the caller: its
    edges at or above ``threshold`` span the groups; ``parts``, with it, their components
    (:meth:`~neardup_core.grouping.forest.RootedForest.components`), when the caller has
    them. COHESIVE reads ``parts`` without a forest: the components of ``mode_graph`` at
    ``threshold``, whose texts are those of the links between texts. ``parallel``: two
    independent parts may be computed side by side (the table's distances beside its equal
    texts; COHESIVE's, see :func:`~neardup_core.grouping.cohesive.cohesive_groups`;
    CONNECTED's, :func:`~neardup_core.grouping.connected.connected_groups`), with
    :func:`~neardup_core.threadwork.side_by_side`.
    """
    n, mode, cls = inputs.n, inputs.mode, inputs.text_class
    rank, pair_scores = inputs.rank, inputs.pair_scores
    a, b, s = inputs.a, inputs.b, inputs.s
    t32 = np.float32(threshold)
    texts = inputs.__dict__.get("text_edges") if mode == GroupMode.STRICT else None
    if texts is not None:  # prepared for moves: the files' pairs are not read
        keep = np.flatnonzero(texts[2] >= t32)
        texts = (texts[0][keep], texts[1][keep], texts[2][keep])
    elif inputs.shadow is not None:
        keep = np.flatnonzero((s >= t32) & (inputs.shadow < t32))
        a, b, s = a[keep], b[keep], s[keep]
    if mode == GroupMode.STRICT:
        flat, offsets, score, weakest = strict_by_text(n, a, b, s, rank, cls, threshold,
                                                       pair_scores, inputs.ranked,
                                                       inputs.leaders, texts)
        sizes = np.diff(offsets)
    elif mode == GroupMode.COHESIVE:
        floor = cohesion_floor(threshold, inputs.minhash_slots or COHESIVE_SAMPLES)
        flat, offsets, score, weakest = cohesive_groups(
            n, a, b, s, threshold, floor, pair_scores, rank, text_class=cls,
            ignored=inputs.ignored, unsettled=unsettled, nodes=inputs.nodes, parts=parts,
            parallel=parallel)
        sizes = np.diff(offsets)
    else:
        if forest is not None:  # CONNECTED's: its edges the threshold keeps, as the pairs'
            at = np.flatnonzero(forest[2] >= float(np.float32(threshold)))
            forest = (forest[0][at], forest[1][at], forest[2][at])
        flat, offsets, weakest, score = flat_groups(n, a, b, s, threshold, mode, pair_scores,
                                                    rank, ranked=inputs.ranked, forest=forest,
                                                    parts=parts if forest is not None
                                                    else None, parallel=parallel)
        flat = flat.astype(np.int64, copy=False)
        sizes = np.diff(offsets)
    head = flat[offsets[:-1]]  # each group's reference
    # Scores come from the grouping (edges, or pair_scores for members not linked to their
    # reference); distance is a cheap popcount. Jaccard is the score itself when MinHash is
    # the scorer, and not known with SimHash alone. (The references' columns are read per
    # group and repeated, not read again per member.)
    score = np.asarray(score, dtype=np.float32)
    dist, same = side_by_side(
        lambda: hamming(inputs.simhash[flat], np.repeat(inputs.simhash[head], sizes)),
        lambda: cls[flat] == np.repeat(cls[head], sizes), parallel=parallel)
    score[same] = 1.0
    jac = (score.copy() if inputs.minhash_slots
           else np.full(flat.shape[0], np.nan, dtype=np.float32))
    exact = np.logical_and.reduceat(same, offsets[:-1]) if flat.size else \
        np.zeros(0, dtype=bool)
    return GroupTable(offsets=offsets, members=flat, similarity=score, distance=dist,
                      jaccard=jac, weakest=np.asarray(weakest, dtype=np.float32), exact=exact)


def class_leaders(rank: np.ndarray, text_class: np.ndarray) -> np.ndarray:
    """Per class of equal texts (``text_class``: 0..k-1), its leader: the best-ranked
    document, then the lowest index."""
    n = text_class.shape[0]
    cls = text_class
    order = np.lexsort((np.arange(n), rank, cls))
    first = np.ones(n, dtype=bool)
    first[1:] = cls[order[1:]] != cls[order[:-1]]
    leader = np.empty(int(cls.max()) + 1 if n else 0, dtype=np.int64)
    leader[cls[order[first]]] = order[first]
    return leader


def strict_by_text(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, rank: np.ndarray,
                   text_class: np.ndarray, threshold: float, pair_scores: PairScores,
                   ranked: tuple[np.ndarray, np.ndarray] | None = None,
                   leaders: np.ndarray | None = None,
                   texts: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """STRICT grouping over texts, not files: exact copies are one node (led by their
    best-ranked file), so a group never keeps a reference's identical twin out.
    ``ranked``, ``leaders``: what :class:`GroupingInputs` keeps of ``rank`` and the classes;
    ``texts``: the edges at ``threshold`` between texts, as :func:`text_edges` gives them,
    when the caller has them (``a``, ``b``, ``s`` are then not read).

    Returns (members flat, offsets, score against the reference, weakest per group).
    """
    cls = text_class
    ncls = int(cls.max()) + 1 if n else 0
    leader = class_leaders(rank, cls) if leaders is None else leaders
    pos = (ranked if ranked is not None else rank_positions(rank))[1]
    # The leaders' groups as they come, in no order: the one sort below orders them with
    # their copies (ordering them first as well cost a jump at 10^6 documents 50-80 ms)
    if texts is not None:
        refs, gid, member, score, weak = strict_members(n, *texts, pos, unique=True)
    else:
        la, lb = leader[cls[a]], leader[cls[b]]
        real = np.flatnonzero(la != lb)
        refs, gid, member, score, weak = strict_members(n, la[real], lb[real], s[real], pos)
    g_of = np.full(n, -1, dtype=np.int64)      # group of each leader
    s_of = np.zeros(n, dtype=np.float64)       # its score against the group's reference
    is_ref = np.zeros(n, dtype=bool)
    g_of[refs] = np.arange(refs.size)
    g_of[member] = gid
    s_of[member] = score
    is_ref[refs] = True
    # classes with copies whose leader is in no group form exact groups of their own
    csize = np.bincount(cls, minlength=ncls)
    lone = np.flatnonzero((csize >= 2) & (g_of[leader] < 0))
    g_of[leader[lone]] = refs.size + np.arange(lone.size)
    is_ref[leader[lone]] = True
    weak = np.concatenate([weak, np.ones(lone.size)])
    g_ref = np.concatenate([refs, leader[lone]])  # each group's reference (its first member)
    docs = np.flatnonzero(g_of[leader[cls]] >= 0)
    lead = leader[cls[docs]]
    grp = g_of[lead]
    counts = np.bincount(grp, minlength=g_ref.size)
    # groups as build_groups orders them: largest first, then by reference index
    gorder = group_order(n, counts, g_ref)
    g_at = np.empty(g_ref.size, dtype=np.int64)
    g_at[gorder] = np.arange(g_ref.size)
    doc_score = np.where(is_ref[lead], 1.0, s_of[lead])
    # reference first, then its copies, then by descending score, then index
    key_ref = ~(docs == lead) | ~is_ref[lead]
    key_copy_of_ref = ~is_ref[lead]
    state = key_ref.astype(np.int8) << 1
    state |= key_copy_of_ref
    o = member_order(n, docs, g_at[grp], g_ref.size, state, doc_score)
    offsets = np.zeros(g_ref.size + 1, dtype=np.int64)
    np.cumsum(counts[gorder], out=offsets[1:])
    return (docs[o], offsets, doc_score[o].astype(np.float32),
            weak.astype(np.float32)[gorder])
