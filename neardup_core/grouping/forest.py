"""A maximum spanning forest rooted once, so that its components at any threshold are read
in one pass over the documents instead of a graph search.

At a threshold the forest's edges at or above it have the components of all the edges (see
:func:`~neardup_core.grouping.connected.max_spanning_forest`); a regroup needs them at every
move (:mod:`~neardup_core.grouping.regroup`), and CONNECTED's groups are them. With the
forest rooted, a document's component at a threshold is named by its highest ancestor
reached through edges at or above it: taking the documents level by level from the roots,
each one takes its parent's name when the edge to its parent is kept, else names itself.
At 10^6 documents (``benchmarks.micro.synthetic_result``, 35 levels) that took 21 ms against
56 for SciPy's search over the kept edges, which also builds a graph of them each time;
rooting costs about 0.4 s once, when a result is prepared for moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from neardup_core.arrays import run_positions
from neardup_core.grouping.edges import components, graph

#: A forest with more levels below its roots than this (a long chain of versions) is not
#: rooted: a level costs a few NumPy calls, and so many would cost more than the search.
MAX_LEVELS = 2048


@dataclass(frozen=True)
class RootedForest:
    """Every document by levels from its tree's root (``order``, cut at ``levels``) and, at
    each place of that order, its parent's place (its own at a root) and the score of the
    edge to its parent (-inf at a root): each level is then read and written in one piece,
    and only a parent's name is fetched from elsewhere (the level above)."""

    order: np.ndarray
    levels: np.ndarray
    parent_at: np.ndarray
    weight_at: np.ndarray
    #: the last threshold read and its names: a move from scratch asks for the components
    #: (its grouping) and the names (its labels) at one threshold, ~20 ms each at 10^6
    _last: dict = field(default_factory=dict, repr=False, compare=False)

    def _names_at(self, threshold: float) -> np.ndarray:
        """Per place in ``order``, the place of its component's name at ``threshold``
        (read-only: kept for the next call at the same threshold)."""
        t = float(np.float32(threshold))
        last = self._last.get("names")  # one tuple, replaced whole: safe across threads
        if last is not None and last[0] == t:
            return last[1]
        name = self._read_names(t)
        name.flags.writeable = False
        self._last["names"] = (t, name)
        return name

    def _read_names(self, t: float) -> np.ndarray:
        name = np.arange(self.order.shape[0], dtype=np.int64)
        parent, weight = self.parent_at, self.weight_at
        for lo, hi in zip(self.levels[1:-1].tolist(), self.levels[2:].tolist(), strict=True):
            up = np.flatnonzero(weight[lo:hi] >= t)
            up += lo
            name[up] = name[parent[up]]
        return name

    def names(self, threshold: float) -> np.ndarray:
        """Per document, a document of its component at ``threshold`` (its highest ancestor
        joined to it by edges scoring at least ``threshold``), the same for the whole
        component."""
        out = np.empty(self.order.shape[0], dtype=np.int64)
        out[self.order] = self.order[self._names_at(threshold)]
        return out

    def components(self, threshold: float) -> tuple[int, np.ndarray]:
        """:func:`~neardup_core.grouping.edges.components` of the forest's edges at
        ``threshold``: (their number, each document's, numbered in the order of their
        names' places)."""
        name = self._names_at(threshold)
        own = name == np.arange(name.shape[0])
        number = np.cumsum(own, dtype=np.int64)
        number -= 1
        out = np.empty(name.shape[0], dtype=np.int64)
        out[self.order] = number[name]
        return int(number[-1]) + 1 if name.size else 0, out


def rooted_forest(n: int, fa: np.ndarray, fb: np.ndarray, fw: np.ndarray
                  ) -> RootedForest | None:
    """The forest of edges (fa, fb, fw) over ``n`` documents rooted at each tree's lowest
    document, by a breadth-first walk of all trees at once; None when it is deeper than
    :data:`MAX_LEVELS` (or is no forest)."""
    if n == 0:
        return None
    _, tree = components(n, fa, fb)
    root = np.full(int(tree.max()) + 1, n, dtype=np.int64)
    np.minimum.at(root, tree, np.arange(n, dtype=np.int64))
    both = graph(n, np.r_[fa, fb], np.r_[fb, fa], np.r_[fw, fw].astype(np.float64))
    indptr, indices, data = both.indptr.astype(np.int64), both.indices, both.data
    parent = np.arange(n, dtype=np.int64)
    weight = np.full(n, -np.inf)
    seen = np.zeros(n, dtype=bool)
    frontier = root
    seen[frontier] = True
    parts, levels = [frontier], [0, frontier.size]
    while True:
        starts = indptr[frontier]
        counts = indptr[frontier + 1] - starts
        at = run_positions(starts, counts)
        nb = indices[at].astype(np.int64)
        new = np.flatnonzero(~seen[nb])
        if not new.size:
            break
        if len(levels) - 1 > MAX_LEVELS:  # the level this would be, below the roots
            return None
        nb, at = nb[new], at[new]
        seen[nb] = True
        parent[nb] = np.repeat(frontier, counts)[new]
        weight[nb] = data[at]
        frontier = nb
        parts.append(nb)
        levels.append(levels[-1] + nb.size)
    order = np.concatenate(parts)
    if order.size != n:  # a document reached twice: no forest
        return None
    place = np.empty(n, dtype=np.int64)
    place[order] = np.arange(n)
    return RootedForest(order, np.asarray(levels, dtype=np.int64), place[parent[order]],
                        weight[order])
