"""COHESIVE groups: CONNECTED's groups, except that no two members are clearly less alike than
the threshold.

A component holding such a pair is split into stars: every member of a star is linked (at or
above the threshold) to its centre, and no two of them are below the floor. So two moderate
edits of one text (each 0.65 to it, 0.42 to each other) are not grouped together, while a text,
its copies and its light edits stay one group even when the edits are only ~0.5 alike with each
other. "Clearly less alike" means a score more than :data:`COHESIVE_Z` standard errors of its
estimate below the threshold (:func:`cohesion_floor`: 0.47 at 0.6 with 128 MinHash slots).
``weakest`` is the lowest member score against the reference, as in STRICT; it is never below
that floor.

COHESIVE works on texts, not files (exact copies are one node, so 5,000 identical files cost
one), inside each connected component of the links. A component whose pairs of texts are all
known at or above the floor (the usual case) is one group as it is: nothing is computed. Any
other component of up to :data:`COHESIVE_MAX_TEXTS` texts gets its full score matrix (the
known pairs, the rest from one ``pair_scores`` call for all components); if a pair is below
the floor it is split into stars (:func:`_stars`): the text with the most links becomes a
centre; its linked texts that clash with nobody in that pool join, the others central-first
(highest mean score to the pool) as long as they are at least the floor with everyone already
in; repeat on the texts left. Centres are chosen by links, not by rank, so a light edit that
happens to be the best-ranked file does not break its source's group (the reference, the
best-ranked member, may differ from the centre). Components are padded to power-of-two widths
and stacked, so each step is one numpy operation over every component of a width.
Components too big for that, or beyond :data:`COHESIVE_BUDGET` cells of matrices in all
(smaller components go first), are split by STRICT's rule on their links instead: a slider
move must stay fast on any data. Pairs the user marked as not duplicates count as below the
floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from neardup_core.arrays import renumbered_order, renumbered_pairs, renumbering, unique_sorted
from neardup_core.grouping.edges import (
    PairScores,
    check_pairs,
    components,
    dense_rank,
    flat_layout,
    flat_members,
    rank_order,
    unique_edges,
)
from neardup_core.grouping.strict import strict_claims
from neardup_core.threadwork import side_by_side

#: COHESIVE: two documents whose score is this many standard errors of its estimate below the
#: threshold never share a group (see :func:`cohesion_floor`).
COHESIVE_Z = 3.0
#: COHESIVE: MinHash slots behind a score, for its standard error, when the result has none
#: to tell (SimHash scores); the default ``num_perm``.
COHESIVE_SAMPLES = 128
#: COHESIVE: a component of more distinct texts than this, when it must be split, is split by
#: STRICT's rule instead of stars, which need all its pair scores (quadratic)...
COHESIVE_MAX_TEXTS = 64
#: ... and so are the components left once the stars' score matrices (smaller components
#: first, each padded to a power-of-two width) would exceed this many cells in all: a slider
#: move stays within its time whatever the data (2^19 cells: at most 2^18 pair_scores).
COHESIVE_BUDGET = 1 << 19


def cohesion_floor(threshold: float, samples: int = COHESIVE_SAMPLES) -> float:
    """The lowest score two members of one COHESIVE group may have.

    A score estimates a Jaccard similarity J from ``samples`` MinHash slots, with standard
    error sqrt(J (1 - J) / samples); a pair scoring :data:`COHESIVE_Z` such errors below the
    threshold is, beyond the estimate's noise, less alike than the threshold asks. At the
    default 0.6 with 128 slots the floor is 0.47.
    """
    t = float(threshold)
    return t - COHESIVE_Z * math.sqrt(max(t * (1.0 - t), 0.0) / max(int(samples), 1))


@dataclass(frozen=True)
class CohesiveNodes:
    """What COHESIVE reads that the threshold does not change: documents in rank order, the
    node (best-ranked copy) of each, one pair per two texts with its strongest known score
    (less the pairs of texts the user said differ, which are ``conflict``: ``lo * n + hi``),
    and which documents have a copy (``copied``; None: none has). Built once per result, it
    spares a regroup the sorts (:func:`cohesive_nodes`)."""

    n: int
    lead: np.ndarray
    order: np.ndarray
    pos: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    s: np.ndarray
    conflict: np.ndarray
    copied: np.ndarray | None = None

    def restrict(self, docs: np.ndarray) -> CohesiveNodes:
        """The same for the documents ``docs`` (sorted, every copy of their texts among them),
        renumbered 0..k-1 in their order."""
        k = docs.shape[0]
        new = renumbering(self.n, docs)
        order, pos = renumbered_order(self.order, new)
        lo, hi, keep = renumbered_pairs(self.lo, self.hi, new)
        keep = np.flatnonzero(keep)
        ca, cb, both = renumbered_pairs(self.conflict // max(self.n, 1),
                                        self.conflict % max(self.n, 1), new)
        return CohesiveNodes(k, new[self.lead[docs]], order, pos, lo[keep], hi[keep],
                             self.s[keep], ca[both] * k + cb[both],
                             None if self.copied is None else self.copied[docs])


def cohesive_nodes(n_docs: int, a: np.ndarray, b: np.ndarray, score: np.ndarray,
                   rank: np.ndarray, *, text_class: np.ndarray | None = None,
                   ignored: tuple[np.ndarray, np.ndarray] | None = None) -> CohesiveNodes:
    """The :class:`CohesiveNodes` of the known pairs (see :func:`cohesive_groups`)."""
    a, b, s, rank = check_pairs(n_docs, a, b, score, rank)
    n = n_docs
    order = rank_order(rank)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    lead = np.arange(n, dtype=np.int64)  # every document a node of its own, but copies
    copied = None
    if text_class is not None:
        cls = np.asarray(text_class).astype(np.int64, copy=False).ravel()
        if cls.shape[0] != n:
            raise ValueError(f"text_class has {cls.shape[0]} entries for {n} documents")
        copies = np.bincount(cls)[cls] if n else np.zeros(0, dtype=np.int64)
        if n and int(copies.max()) >= 2:  # (else no two documents share a text)
            copied = copies >= 2
            lead = _class_leaders(cls, order, pos)
    # node-level pairs, one per pair of texts (a node is named by its best-ranked document)
    la, lb = lead[a], lead[b]
    real = np.flatnonzero(la != lb)
    lo, hi, s = unique_edges(n, la[real], lb[real], s[real])
    conflict = np.empty(0, dtype=np.int64)
    if ignored is not None:
        ia = np.asarray(ignored[0]).astype(np.int64, copy=False).ravel()
        ib = np.asarray(ignored[1]).astype(np.int64, copy=False).ravel()
        if ia.shape != ib.shape:
            raise ValueError("ignored must be two index arrays of equal length")
        if ia.size and (min(ia.min(), ib.min()) < 0 or max(ia.max(), ib.max()) >= n):
            raise ValueError(f"ignored indices must be in [0, {n})")
        xa, xb = lead[ia], lead[ib]
        keep = xa != xb
        conflict = unique_sorted(np.minimum(xa, xb)[keep] * n + np.maximum(xa, xb)[keep])
        if conflict.size and lo.size:
            drop = np.isin(lo * n + hi, conflict)
            lo, hi, s = lo[~drop], hi[~drop], s[~drop]
    return CohesiveNodes(n, lead, order, pos, lo, hi, s, conflict, copied)


def cohesive_groups(n_docs: int, a: np.ndarray, b: np.ndarray, score: np.ndarray,
                    threshold: float, floor: float, pair_scores: PairScores, rank: np.ndarray,
                    *, text_class: np.ndarray | None = None,
                    ignored: tuple[np.ndarray, np.ndarray] | None = None,
                    unsettled: np.ndarray | None = None, nodes: CohesiveNodes | None = None,
                    parts: tuple[int, np.ndarray] | None = None, parallel: bool = False
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """COHESIVE groups as (members flat, offsets, score against the reference, weakest).

    ``a``/``b``/``score`` are known pair scores: those at or above ``threshold`` are links,
    lower ones only spare ``pair_scores`` calls. ``text_class`` (equal = same text) makes
    exact copies one node first; ``ignored`` pairs (documents the user said differ) never
    share a group. Groups come in :func:`build_groups` order; ``weakest`` is each group's
    lowest member score against its reference. ``unsettled`` (bool, one per document), when
    given, is set for the documents whose component was not whole as it is: their groups
    depend on more than their links (the floor, scores not known, the budget), which a
    regroup at another threshold must know (:mod:`~neardup_core.grouping.regroup`).
    ``nodes``, when given, are :func:`cohesive_nodes` of the same arguments, prepared once.
    ``parts``, when given: (number, label per document) of components that hold each text's
    documents together and otherwise join what the links at ``threshold`` join (the
    regrouper's rooted forest of :func:`~neardup_core.grouping.regroup.mode_graph`: read
    level by level, cheaper than searching the links again). ``parallel``: the components
    split by STRICT's rule and those split into stars are computed side by side, and so
    are the groups' order and the members' scores against their references
    (:func:`~neardup_core.threadwork.side_by_side`).
    """
    if nodes is None:
        nodes = cohesive_nodes(n_docs, a, b, score, rank, text_class=text_class,
                               ignored=ignored)
    n, lo, hi, s, lead = nodes.n, nodes.lo, nodes.hi, nodes.s, nodes.lead
    pos, conflict = nodes.pos, nodes.conflict
    link = s >= np.asarray(threshold).astype(s.dtype)
    node_key = np.full(n, -1, dtype=np.int64)  # nodes with one key form one group; -1: none
    if link.any():
        unsettled_node = _cohesive_nodes(n, lo, hi, s, link, conflict, float(floor),
                                         pair_scores, pos, node_key, parts, parallel)
        if unsettled is not None:
            unsettled[:] = unsettled_node[lead]
    elif unsettled is not None:
        unsettled[:] = False
    return _cohesive_assemble(n, nodes.copied, lead, node_key, lo, hi, s, pair_scores,
                              nodes.order, pos, parallel)


def _class_leaders(cls: np.ndarray, order: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Per document, the best-ranked document with the same text (itself when alone)."""
    n = cls.shape[0]
    key = np.sort(cls * n + pos)
    first = np.ones(n, dtype=bool)
    first[1:] = key[1:] // n != key[:-1] // n
    leader = np.empty(int(cls.max()) + 1, dtype=np.int64)
    leader[key[first] // n] = order[key[first] % n]
    return leader[cls]


def _cohesive_nodes(n: int, lo: np.ndarray, hi: np.ndarray, s: np.ndarray, link: np.ndarray,
                    conflict: np.ndarray, floor: float, pair_scores: PairScores,
                    pos: np.ndarray, node_key: np.ndarray,
                    parts: tuple[int, np.ndarray] | None = None, parallel: bool = False
                    ) -> np.ndarray:
    """Give every grouped node its group's key, per connected component of the links (or of
    ``parts``, see :func:`cohesive_groups`); returns which nodes are in a component that is
    not whole as it is.

    A component is one group as it is when no two of its texts are below the floor. When the
    known pairs already show that (each pair of its texts is known, at or above the floor:
    the usual case of copies and light edits of one text) nothing is computed. Otherwise a
    component of at most COHESIVE_MAX_TEXTS texts, within COHESIVE_BUDGET, gets its dense
    score matrix and, if a pair is below the floor, is split into stars (:func:`_stars`);
    the others fall back to STRICT's rule on their links, which costs no quadratic work.

    A key names a group by one of its nodes, so that keys stay within ``[0, 2n)`` and the
    assembly ranks them by marking rather than sorting (at 10^6 documents a sort of the keys
    cost a COHESIVE jump 45 ms): a whole component by its label (below ``n``), any other
    group by ``n`` + one of its nodes (the STRICT reference, a star's lowest node).
    """
    at = np.flatnonzero(link)
    ka, kb = lo[at], hi[at]
    ncomp, label = components(n, ka, kb) if parts is None else parts
    touched = np.zeros(n, dtype=bool)
    touched[ka] = True
    touched[kb] = True
    nodes = np.flatnonzero(touched)
    lnodes, llo = label[nodes], label[lo]  # each read once (a pass over 10^6 each)
    size = np.bincount(lnodes, minlength=ncomp)
    same = llo == label[hi]  # pairs inside one component
    fine = same & (s >= floor)  # links included: threshold >= floor
    nfine = np.bincount(llo[np.flatnonzero(fine)], minlength=ncomp)
    whole = nfine == size * (size - 1) // 2
    big = ~whole & (size >= 2)  # to split: by stars within the budget, else as STRICT
    fit = _within_budget(n, np.flatnonzero(big & (size <= COHESIVE_MAX_TEXTS)), size,
                         nodes, lnodes)
    big[fit] = False
    node_whole = whole[lnodes]
    keep = np.flatnonzero(node_whole)
    node_key[nodes[keep]] = lnodes[keep]  # keys below ncomp <= n
    unsettled = np.zeros(n, dtype=bool)
    unsettled[nodes[np.flatnonzero(~node_whole)]] = True
    work = nodes[np.flatnonzero((~whole & ~big)[lnodes])]
    strict = bool(big.any())

    def claims() -> tuple[np.ndarray, np.ndarray] | None:
        if not strict:
            return None
        m = np.flatnonzero(big[llo[at]])
        owner, member, _ = strict_claims(n, ka[m], kb[m], None, pos)
        return owner, member

    def stars() -> None:  # keys in [n, 2n): n + a node of the star (of ``work``'s nodes,
        if work.size:  # none of them in a component of ``claims``)
            _dense_stars(n, work, label, lo, hi, s, link, conflict, floor, pair_scores, pos,
                         node_key, same, llo)

    claimed, _ = side_by_side(claims, stars, parallel=parallel and strict and bool(work.size))
    if claimed is not None:  # keys in [n, 2n): n + the reference
        owner, member = claimed
        node_key[owner] = n + owner
        node_key[member] = n + owner
    return unsettled


def _within_budget(n: int, fit: np.ndarray, size: np.ndarray, nodes: np.ndarray,
                   lnodes: np.ndarray) -> np.ndarray:
    """The components of ``fit`` that get stars: smaller first (by their padded matrix's
    cells), then by their lowest node (the order of SciPy's labels, whatever labels ``parts``
    has: the budget takes the same components either way), as long as the cells taken are
    within :data:`COHESIVE_BUDGET`. ``size``: texts per component; ``lnodes``: the
    component of each of ``nodes`` (ascending).

    Widths are powers of two, so this is every component of the widths that fit whole and
    the lowest-named of the next width: no sort of all of them (3 ms at 10^6 documents), and
    the lowest nodes are looked for in those of that width alone."""
    if not fit.size:
        return fit
    cells = np.maximum(4, 1 << np.ceil(np.log2(np.maximum(size[fit], 2))).astype(np.int64)) ** 2
    area, count = np.unique(cells, return_counts=True)
    spent = np.cumsum(area * count)
    whole = int(np.searchsorted(spent, COHESIVE_BUDGET, side="right"))  # matrix sizes taken whole
    if whole == area.size:
        return fit
    left = COHESIVE_BUDGET - (int(spent[whole - 1]) if whole else 0)
    k = left // int(area[whole])  # components of the next size that still fit
    taken = fit[cells < area[whole]]
    if k == 0:
        return taken
    part = fit[cells == area[whole]]
    lowest = np.full(size.shape[0], n, dtype=np.int64)
    inpart = np.zeros(size.shape[0], dtype=bool)
    inpart[part] = True
    at = np.flatnonzero(inpart[lnodes])
    np.minimum.at(lowest, lnodes[at], nodes[at])
    low = lowest[part]
    first = np.argpartition(low, k - 1)[:k]  # (the lowest nodes are distinct)
    return np.concatenate([taken, part[first]])


def _dense_stars(n: int, work: np.ndarray, label: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 s: np.ndarray, link: np.ndarray, conflict: np.ndarray, floor: float,
                 pair_scores: PairScores, pos: np.ndarray, node_key: np.ndarray,
                 same: np.ndarray, llo: np.ndarray) -> None:
    """Stars in the components of ``work`` nodes, all components at once (``same``: per
    pair, whether its two nodes are in one component; ``llo``: ``label[lo]``).

    Components are padded to a power-of-two width and stacked, one 3-D block per width, so
    every step below is a numpy operation over all components of that width. The scores
    between their nodes come from the known pairs, the rest from one ``pair_scores`` call.
    A component with no pair below the floor stays whole.
    """
    ncomp = int(label.max()) + 1
    wn = work[np.lexsort((pos[work], label[work]))]  # by component, then rank
    wlab = label[wn]
    first = np.ones(wn.size, dtype=bool)
    first[1:] = wlab[1:] != wlab[:-1]
    starts = np.flatnonzero(first)
    k = np.diff(np.r_[starts, wn.size])
    local = np.full(n, -1, dtype=np.int64)  # a node's place in its component (rank order)
    local[wn] = np.arange(wn.size) - np.repeat(starts, k)
    width = np.maximum(4, 1 << np.ceil(np.log2(k)).astype(np.int64))
    widths = unique_sorted(width)
    block = np.full(ncomp, -1, dtype=np.int64)  # component -> block (one per width)
    block[wlab[starts]] = np.searchsorted(widths, width)
    row = np.empty(ncomp, dtype=np.int64)  # component -> its place in its block
    # pairs inside one work component (a component holding a work node holds no other kind:
    # nodes without links are in components of their own, or of their copies, never in pairs)
    pair_block = block[llo]
    inside = np.flatnonzero(same & (pair_block >= 0))
    pb = pair_block[inside]
    inside = inside[np.argsort(pb, kind="stable")]
    cut = np.searchsorted(np.sort(pb), np.arange(widths.size + 1))
    pa_, pb_, ps, pl = local[lo[inside]], local[hi[inside]], s[inside], link[inside]
    pc = llo[inside]
    blocks = []
    qa, qb = [], []
    for bi, w in enumerate(widths.tolist()):
        sel = np.flatnonzero(width == w)
        row[wlab[starts[sel]]] = np.arange(sel.size)
        sc = np.full((sel.size, w, w), np.nan, dtype=np.float32)
        lk = np.zeros((sel.size, w, w), dtype=bool)
        h = slice(cut[bi], cut[bi + 1])
        r, x, y = row[pc[h]], pa_[h], pb_[h]
        sc[r, x, y] = sc[r, y, x] = ps[h]
        lk[r, x, y] = lk[r, y, x] = pl[h]
        idx = np.arange(w)
        valid = idx[None, :] < k[sel][:, None]
        pad = ~(valid[:, :, None] & valid[:, None, :])
        sc[pad] = 0.0
        sc[:, idx, idx] = 0.0  # a node against itself counts for nothing in averages
        r, x, y = np.nonzero(np.isnan(sc) & (idx[:, None] < idx[None, :]))
        qa.append(wn[starts[sel][r] + x])
        qb.append(wn[starts[sel][r] + y])
        blocks.append((bi, sel, sc, lk, valid, pad, (r, x, y)))
    ua, ub = np.concatenate(qa), np.concatenate(qb)
    got = (np.asarray(pair_scores(ua, ub)[0], dtype=np.float32) if ua.size
           else np.empty(0, dtype=np.float32))
    done = 0
    for bi, sel, sc, lk, valid, pad, (r, x, y) in blocks:
        sc[r, x, y] = sc[r, y, x] = got[done:done + r.size]
        done += r.size
        ok = (sc >= floor) | pad
        if conflict.size:
            ca, cb = conflict // n, conflict % n
            m = (local[ca] >= 0) & (label[ca] == label[cb])
            m[m] = block[label[ca[m]]] == bi
            rr, xa, xb = row[label[ca[m]]], local[ca[m]], local[cb[m]]
            ok[rr, xa, xb] = ok[rr, xb, xa] = False
        idx = np.arange(sc.shape[1])
        ok[:, idx, idx] = True
        split = ~ok.reshape(sel.size, -1).all(axis=1)
        rnd = np.where(valid, 0, -1)  # a component with no pair below the floor: one group
        if split.any():
            rnd[split] = _stars(sc[split], lk[split], ok[split], valid[split])
        rr, cc = np.nonzero(rnd >= 0)
        star_nodes = wn[starts[sel][rr] + cc]
        star = rr * w + rnd[rr, cc]  # a round is below the width
        lowest = np.full(sel.size * w, n, dtype=np.int64)
        np.minimum.at(lowest, star, star_nodes)
        node_key[star_nodes] = n + lowest[star]


def _stars(sc: np.ndarray, lk: np.ndarray, ok: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Per component (first axis) and node, the round whose star took it (-1: none).

    Each round, in every component at once: the centre is the free node with the most links
    to free nodes (then the larger sum of those scores, then rank); the centre and its free
    linked nodes are the pool. A candidate at least the floor (``ok``) with everyone in the
    pool joins at once; the others are taken central first (highest mean score to the rest
    of the pool, then rank), each when it is at least the floor with everyone taken so far
    (so joining at once changes nothing: the order only matters among clashing ones). The star
    is a group; repeat while any two free nodes are linked. Sums over the short last axis go
    through einsum, several times faster than ``.sum`` on these shapes.
    """
    m, w, _ = sc.shape
    out = np.full((m, w), -1, dtype=np.int64)
    free = valid.copy()
    # a link weighs 1 in the centre's key before its score breaks ties (scores < w + 1)
    weight = (sc + np.float32(w + 1)) * lk
    bad = (~ok).astype(np.float32)
    rows = np.arange(m)
    rnd = 0
    while rows.size:
        full = rows.size == m
        f = free if full else free[rows]
        ff = f.astype(np.float32)
        key = np.einsum("rij,rj->ri", weight if full else weight[rows], ff)
        key *= ff
        centre = key.argmax(axis=1)
        ar = np.arange(rows.size)
        live = key[ar, centre] > 0.0
        if not live.all():
            rows, f, centre = rows[live], f[live], centre[live]
            if not rows.size:
                break
            full = False
            ar = np.arange(rows.size)
        cand = lk[rows, centre] & f
        pool = cand.copy()
        pool[ar, centre] = True
        pf = pool.astype(np.float32)
        hits = np.einsum("rij,rj->ri", bad if full else bad[rows], pf) * pf
        clash = hits.any(axis=1)
        take = pool
        if clash.any():
            c = np.flatnonzero(clash)
            rc, hc = rows[c], hits[c] > 0  # hc: candidates with a clash in the pool
            pfc = pf[c]
            mean = np.einsum("rij,rj->ri", sc[rc], pfc) / (pfc.sum(axis=1) - 1)[:, None]
            order = np.argsort(np.where(hc, -mean, np.inf), axis=1, kind="stable")
            acc = pool[c] & ~hc
            ntodo = hc.sum(axis=1)
            ok_c = ok[rc]
            arc = np.arange(c.size)
            for j in range(int(ntodo.max())):
                x = order[:, j]
                good = (j < ntodo) & ~(acc & ~ok_c[arc, x]).any(axis=1)
                acc[arc[good], x[good]] = True
            take = pool.copy()
            take[c] = acc
        tr, tc = np.nonzero(take)
        out[rows[tr], tc] = rnd
        free[rows[tr], tc] = False
        rnd += 1
    return out


def _cohesive_assemble(n: int, copied: np.ndarray | None, lead: np.ndarray,
                       node_key: np.ndarray,
                       lo: np.ndarray, hi: np.ndarray, s: np.ndarray, pair_scores: PairScores,
                       order: np.ndarray, pos: np.ndarray, parallel: bool = False
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Nodes' keys -> documents in groups, references, scores against them, weakest
    (``parallel``: the groups' order and places beside the scores)."""
    key = node_key[lead]
    if copied is not None:  # copies whose text is in no group are a group of their own, as in
        # STRICT: named n + their text's node, a node in no other group (see _cohesive_nodes)
        alone = (key < 0) & copied
        key[alone] = n + lead[alone]
    docs = np.flatnonzero(key != -1)
    ngroups, gid = dense_rank(key[docs])
    gsize = np.bincount(gid, minlength=ngroups)
    best = np.full(ngroups, n, dtype=np.int64)
    np.minimum.at(best, gid, pos[docs])
    gref = order[best] if ngroups else np.empty(0, dtype=np.int64)
    is_ref = docs == gref[gid]

    def scores() -> tuple[np.ndarray, np.ndarray]:
        """Each text's score against its group's reference text (known pairs, then
        pair_scores), and each group's weakest."""
        ref_lead = np.full(n, -1, dtype=np.int64)
        ref_lead[lead[docs]] = lead[gref[gid]]
        nsref = np.full(n, np.nan)
        m = np.flatnonzero(ref_lead[hi] == lo)
        nsref[hi[m]] = s[m]
        m = np.flatnonzero(ref_lead[lo] == hi)
        nsref[lo[m]] = s[m]
        present = np.zeros(n, dtype=bool)  # the texts in groups, ascending, with no sort
        present[lead[docs]] = True
        nodes = np.flatnonzero(present)
        need = nodes[np.isnan(nsref[nodes]) & (ref_lead[nodes] != nodes)]
        if need.size:
            nsref[need] = np.asarray(pair_scores(ref_lead[need], need)[0], dtype=np.float64)
        ld = lead[docs]
        sref = np.where(ld == ref_lead[ld], 1.0, nsref[ld])
        weak = np.ones(ngroups, dtype=np.float64)
        member = np.flatnonzero(~is_ref)
        np.minimum.at(weak, gid[member], sref[member])
        return sref, weak

    layout, (sref, weak) = side_by_side(
        lambda: flat_layout(n, docs, gid, is_ref, gsize, gref), scores, parallel=parallel)
    flat, offsets, weak, sflat = flat_members(n, layout, sref, weak)
    return flat, offsets, sflat, weak
