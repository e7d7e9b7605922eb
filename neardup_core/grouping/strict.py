"""STRICT groups: every member is at or above the threshold against the group's reference.

Inside each connected component the best-ranked remaining document becomes a reference and
takes every remaining document paired with it at or above the threshold; repeat until fewer
than two are left (singletons are dropped). ``weakest`` is the lowest member score against
the reference.

Membership is read from the edges, not recomputed with ``pair_scores`` against every document
of the component: the edges are exactly the pairs at or above the threshold that the scan
found *and the user did not mark as "not duplicates"* (they are removed before grouping;
``pair_scores`` knows nothing of that), and it keeps STRICT groups inside the CONNECTED ones.
It also makes the rule vectorisable: walking documents best-ranked first, a document is a
reference exactly when no better-ranked neighbour is one (the greedy independent set in rank
order), which numpy finds for all components at once in a few rounds (see ``_references``);
each other document then joins its best-ranked reference neighbour. No Python runs per
component, so 10^5 pairs of two cost the same few passes as one big group.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from neardup_core.arrays import renumbering, unique_sorted
from neardup_core.grouping.edges import assemble_flat, graph, no_groups, unique_edges

#: STRICT picks references in vectorised rounds (see ``_references``); after this many rounds
#: the rest is done one document at a time.
STRICT_MAX_ROUNDS = 48


def _references(n: int, a: np.ndarray, b: np.ndarray, pos: np.ndarray,
                touched: np.ndarray | None) -> np.ndarray:
    """Which documents STRICT makes references: the greedy independent set in rank order.

    Walking documents best-ranked first, one becomes a reference unless a reference already
    took it, and a reference takes all its neighbours: so a document is a reference exactly
    when no better-ranked neighbour is one. In rounds, every document ranked before all its
    undecided neighbours is one, and its neighbours are not; random-like ranks need a few
    dozen rounds. A graph that needs more (a long path ranked end to end) finishes one
    document at a time. ``touched``: the documents the edges touch (None: all of them).
    """
    ref = np.zeros(n, dtype=bool)
    out = np.zeros(n, dtype=bool)  # decided: not a reference
    rounds = 0
    none = np.iinfo(np.int64).max
    nb_min = np.empty(n, dtype=np.int64)
    # Each round reads every document's lowest-ranked undecided neighbour and compares over
    # the documents, not over the edges' ends (at 10^6 documents a third of the time)
    while a.size and rounds < STRICT_MAX_ROUNDS:
        rounds += 1
        nb_min.fill(none)  # none: no undecided neighbour (refilled, not made anew: 8 MB
        np.minimum.at(nb_min, a, pos[b])  # of fresh pages a round at 10^6 documents)
        np.minimum.at(nb_min, b, pos[a])
        new = pos < nb_min
        new &= nb_min < none
        ref |= new
        out[b[np.flatnonzero(new[a])]] = True
        out[a[np.flatnonzero(new[b])]] = True
        decided = new | out
        live = np.flatnonzero(~(decided[a] | decided[b]))
        a, b = a[live], b[live]
    if a.size:
        sym = graph(n, np.r_[a, b], np.r_[b, a], np.ones(2 * a.size, dtype=np.int8))
        nodes = unique_sorted(np.r_[a, b])
        for u in nodes[np.argsort(pos[nodes])].tolist():
            if not out[u]:
                ref[u] = True
                out[sym.indices[sym.indptr[u]:sym.indptr[u + 1]]] = True
    # whoever is left undecided lost all its links to documents that references took, so
    # no reference reached it: it is one (taking nobody unless a later pass gives it members)
    ref |= ~out if touched is None else touched & ~out
    return ref


def strict_claims(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray | None,
                  pos: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """STRICT membership over unique edges: (reference, member, edge score) per member; no
    scores (None) for ``s`` None. ``pos`` orders the documents (distinct integers: lower is
    better-ranked). When the edges touch few of the documents (COHESIVE's components too
    big for stars), those are numbered 0..k-1 first, so that each round reads k documents,
    not n."""
    touched = np.zeros(n, dtype=bool)
    touched[a] = True
    touched[b] = True
    nodes = np.flatnonzero(touched)
    if 2 * nodes.size < n:  # each node's place among them, counted (no map of n to fill)
        new = np.cumsum(touched, dtype=np.int32 if n < 2**31 else np.int64)
        new -= 1
        owner, member, score = _claims(nodes.size, new[a], new[b], s, pos[nodes], None)
        return nodes[owner], nodes[member], score
    return _claims(n, a, b, s, pos, touched)


def _claims(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray | None, pos: np.ndarray,
            touched: np.ndarray | None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`strict_claims` over documents 0..n-1, all of them or those the edges touch
    (``touched``; None: every one)."""
    ref = _references(n, a, b, pos, touched)
    # Every other document linked to a reference joins its best-ranked one (the first to reach
    # it in rank order), with that edge's score.
    ra, rb = ref[a], ref[b]
    claim = np.flatnonzero(ra != rb)  # two references are never linked
    ra, a, b = ra[claim], a[claim], b[claim]
    owner = np.where(ra, a, b)
    member = np.where(ra, b, a)
    best = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    owner_pos = pos[owner]
    np.minimum.at(best, member, owner_pos)
    win = np.flatnonzero(owner_pos == best[member])
    score = None if s is None else s[claim[win]].astype(np.float64)
    return owner[win], member[win], score


def strict_members(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, pos: np.ndarray, *,
                   unique: bool = False
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """STRICT groups of the edges (checked, no loops) before any order: (references that took
    at least one member, ascending; each member's group, its place among them; the members;
    their scores against the reference; each group's weakest score). ``pos`` is each
    document's place in rank order; ``unique``: no two edges join the same two documents
    (else the strongest of them counts)."""
    if not unique:
        a, b, s = unique_edges(n, a, b, s)
    owner, member, got = strict_claims(n, a, b, s, pos)
    score = cast(np.ndarray, got)  # scores asked for
    # references that took at least one member, ascending, and each member's: marked and
    # renumbered over the documents rather than sorted and searched
    took = np.zeros(n, dtype=bool)
    took[owner] = True
    refs = np.flatnonzero(took)
    gid = renumbering(n, refs)[owner]
    g_weak = np.full(refs.size, np.inf)
    np.minimum.at(g_weak, gid, score)
    return refs, gid, member, score, g_weak


def strict_groups(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, pos: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """STRICT groups of the edges (checked, no loops) as :func:`assemble_flat` gives them;
    ``pos`` is each document's place in rank order."""
    refs, gid, member, score, g_weak = strict_members(n, a, b, s, pos)
    if not member.size:
        return no_groups()
    g_size = np.bincount(gid, minlength=refs.size) + 1
    docs = np.r_[refs, member]
    comp = np.r_[np.arange(refs.size), gid]
    is_ref = np.r_[np.ones(refs.size, dtype=bool), np.zeros(member.size, dtype=bool)]
    sref = np.r_[np.full(refs.size, np.nan), score]
    return assemble_flat(n, docs, comp, is_ref, sref, g_size, refs, g_weak)
