"""Moving the threshold: the groups at a new threshold from those at a nearby one, regrouping
only the components the move can change.

Why it is exact. Every mode reads a group off one connected component of the links (the
edges at or above the threshold) joined with exact copies (STRICT and COHESIVE treat copies
as one text), and a group's columns are read off its own members; so whatever is true of a
component's edges is true of its groups. Call ``H(t)`` the graph of every edge scoring at
least ``t`` (the reference links too, ignored pairs or not: a coarser graph only makes the
components bigger) joined with copies. Between thresholds ``lo < hi`` the components of
``H(lo)`` are unions of those of ``H(hi)``, joined by the edges scoring in ``[lo, hi)``; a
component of either that holds no such edge is a component of both, with the same links,
so its groups are the same. Only the components of ``H(old)`` that hold such an edge are
grouped again, as a problem of their own (:meth:`GroupingInputs.restrict`: ranks and indices
keep their order, so ties break as in the whole); the other groups are kept, and both lists
merged in the table's order (largest first, then by reference).

COHESIVE also compares scores with a floor that moves with the threshold, and splits
components that are not whole under a budget shared by all of them. So for it the edges
scoring between the two floors count too, and every component that was not whole at the old
threshold is grouped again (with them all in the problem the budget picks as in the whole).

Each :class:`Regrouper` keeps the last few thresholds' tables with the components' labels;
a move starts from the nearest. A move that would regroup most documents anyway (a long
jump) groups them all from scratch: at a million documents that is 0.15-0.23 s, against
less than a tenth of a second for a step of 1 %. So while the window waits for nothing, the
groups at the thresholds a click on the slider's track lands on (the page step,
:data:`WARM_STEP`, either side of the threshold shown) are computed ahead and kept
(:meth:`Regrouper.warm`): a click then finds its groups made, and any other long jump (the
histogram, a typed value) starts from a threshold at most half a page step away. A move
asked for meanwhile goes first.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from neardup_core.arrays import renumbered_pairs, renumbering, run_positions
from neardup_core.grouping.cohesive import COHESIVE_SAMPLES, cohesion_floor
from neardup_core.grouping.connected import max_spanning_forest
from neardup_core.grouping.edges import components
from neardup_core.grouping.forest import RootedForest, rooted_forest
from neardup_core.grouping.table import GroupingInputs, groups_at
from neardup_core.models import GroupMode, GroupTable
from neardup_core.threadwork import side_by_side

#: Regroup from scratch when more than this share of the documents would be grouped again:
#: restricting the inputs to them and merging the tables cost about what grouping the rest
#: does. At a million documents (``benchmarks.micro.synthetic_result``), once grouping from
#: scratch had lost its slowest sorts and masks: at 64-79 % a move took 0.29-0.69 s in part
#: against 0.18-0.53 s whole, at 54-58 % about the same either way, at 31-39 % 0.22-0.31 s
#: against 0.29-0.37 (it was 0.65 before).
FULL_SHARE = 0.5
#: Thresholds whose tables (and labels) a :class:`Regrouper` keeps to start a move from.
KEPT_STATES = 6
#: Scores this close to a band's ends count as inside it: comparisons with the threshold are
#: made in float32 in some places and float64 in others, and a wider band is never wrong.
BAND_SLACK = 1e-6
#: :meth:`Regrouper.warm`'s spacing: the threshold slider's page step (a click on its track).
WARM_STEP = 0.05
#: The most thresholds :meth:`Regrouper.warm` keeps (the whole range 0.4-1.0 at its step is 12;
#: at a million documents a table with its labels is 20-30 MB).
MAX_WARM = 12
#: :meth:`Regrouper.warm` starts no threshold sooner than this after a move was done: moves
#: come one after another while the slider is dragged, and a threshold warmed between two
#: (0.2-0.3 s at 10^6 documents) would hold the next one back.
WARM_QUIET_S = 0.5
#: From this many documents a regroup computes its independent parts side by side on two
#: threads (:func:`~neardup_core.threadwork.side_by_side`): the labels beside the groups, the
#: table's distances beside its equal texts, a COHESIVE move's STRICT claims beside its
#: stars, its restricted pairs beside its nodes (and a result's pair scores, in halves). At
#: 10^6 documents each part is 10-50 ms of NumPy calls that release the GIL; below this
#: they take a few milliseconds in all, and one thread is simpler to follow.
SIDE_BY_SIDE_DOCS = 100_000


@dataclass(frozen=True)
class Grouped:
    """The groups at one threshold and what a move from it needs."""

    threshold: float
    table: GroupTable
    #: per document, a document of its component of ``H(threshold)``, the same for the whole
    #: component (a move only asks which components hold what it changes)
    label: np.ndarray
    #: COHESIVE: per document, whether its component was not whole (None for the others)
    unsettled: np.ndarray | None

    def __post_init__(self) -> None:
        # half the memory of a kept state's labels (:meth:`Regrouper.warm` keeps a dozen)
        if self.label.dtype != np.int32 and self.label.shape[0] < 2**31:
            object.__setattr__(self, "label", self.label.astype(np.int32))


def mode_graph(inputs: GroupingInputs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges (a, b, weight) whose components at a threshold (weight at or above it) hold
    the mode's groups whole: every edge a threshold may keep, at the highest threshold it
    keeps it (a reference's link or the scan's pair of the same two documents); COHESIVE
    without the pairs of texts the user said differ; STRICT and COHESIVE with each document
    joined to the first copy of its text (weight 1: at every threshold)."""
    n = inputs.n
    a, b = inputs.a.astype(np.int64), inputs.b.astype(np.int64)
    w = inputs.s if inputs.shadow is None else np.maximum(inputs.s, inputs.shadow)
    cls = inputs.text_class
    if inputs.ignored is not None and inputs.ignored[0].size:  # COHESIVE's conflicts
        ncls = int(cls.max()) + 1
        xa, xb = cls[inputs.ignored[0]], cls[inputs.ignored[1]]
        conflict = np.minimum(xa, xb) * ncls + np.maximum(xa, xb)
        ca, cb = cls[a], cls[b]
        keep = np.flatnonzero(~np.isin(np.minimum(ca, cb) * ncls + np.maximum(ca, cb),
                                       conflict))
        a, b, w = a[keep], b[keep], w[keep]
    if inputs.mode != GroupMode.CONNECTED and n:
        lowest = np.full(int(cls.max()) + 1, n, dtype=np.int64)
        np.minimum.at(lowest, cls, np.arange(n))
        first = lowest[cls]  # the lowest document with the same text
        copy = np.flatnonzero(first != np.arange(n))
        a = np.concatenate([a, copy])
        b = np.concatenate([b, first[copy]])
        w = np.concatenate([w, np.ones(copy.size, dtype=w.dtype)])
    return a, b, w


def component_labels(inputs: GroupingInputs, threshold: float) -> np.ndarray:
    """Per document, the lowest document of its component of :func:`mode_graph` at
    ``threshold``."""
    n = inputs.n
    if n == 0:
        return np.empty(0, dtype=np.int64)
    a, b, w = mode_graph(inputs)
    link = np.flatnonzero(w >= np.float32(threshold))
    return _by_lowest(n, *components(n, a[link], b[link]))


def _by_lowest(n: int, ncomp: int, label: np.ndarray) -> np.ndarray:
    """Components numbered 0..ncomp-1, named by their lowest document instead."""
    low = np.full(ncomp, n, dtype=np.int64)
    np.minimum.at(low, label, np.arange(n))
    return low[label]


def _floor(inputs: GroupingInputs, threshold: float) -> float:
    return cohesion_floor(threshold, inputs.minhash_slots or COHESIVE_SAMPLES)


def _in_band(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    return (x >= np.float32(lo) - BAND_SLACK) & (x <= np.float32(hi) + BAND_SLACK)


class Regrouper:
    """The groups of fixed :class:`GroupingInputs` at any threshold, cheap to move: see the
    module's docstring. Shared by the results :meth:`~neardup_core.result.ScanResult.regroup`
    makes at other thresholds; safe to call from several threads."""

    def __init__(self, inputs: GroupingInputs, *, valid_from: float = -math.inf,
                 kept: int = KEPT_STATES) -> None:
        self.inputs = inputs
        #: the lowest threshold ``inputs`` hold every edge for (the reference links were
        #: scored down to it)
        self.valid_from = valid_from
        self._kept = max(1, kept)
        self._states: list[Grouped] = []  # oldest first
        self._forest: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._rooted: RootedForest | None = None
        self._rooting_tried = False  # a forest too deep to root is not tried again
        self._warm: list[Grouped] = []  # computed ahead (:meth:`warm`), kept for good
        self._lock = threading.Lock()
        self._asked = threading.Condition(self._lock)  # notified when a move is done
        self._moving = 0  # moves asked for (:meth:`grouped`) and not done: :meth:`warm` waits
        self._moved_at = -math.inf  # when the last move was done (time.monotonic)

    def table(self, threshold: float) -> GroupTable:
        """The group table at ``threshold``."""
        return self.grouped(threshold).table

    def grouped(self, threshold: float) -> Grouped:
        """The groups at ``threshold``: kept, moved to from the nearest kept threshold, or (at
        the first call) computed from scratch; kept among the last few."""
        t = float(threshold)
        with self._lock:
            self._moving += 1
        try:
            state = self._at(t)
        finally:
            with self._lock:
                self._moving -= 1
                self._moved_at = time.monotonic()
                self._asked.notify_all()
        with self._lock:
            others = [g for g in self._states if g.threshold != t]
            self._states = [*others[max(0, len(others) - self._kept + 1):], state]
        return state

    def kept(self, threshold: float) -> GroupTable | None:
        """The group table at ``threshold`` when it is kept (warmed ahead, or a recent move),
        else None: nothing is computed."""
        t = float(threshold)
        with self._lock:
            return next((g.table for g in (*self._warm, *self._states) if g.threshold == t),
                        None)

    def _nearest(self, t: float) -> Grouped | None:
        with self._lock:
            return min([*self._warm, *self._states], key=lambda g: abs(g.threshold - t),
                       default=None)

    def _at(self, t: float) -> Grouped:
        near = self._nearest(t)
        if near is not None and near.threshold == t:
            return near
        return self.full(t) if near is None else self.step(near, t)

    def warm(self, around: float, stop: Callable[[], bool] | None = None, *,
             step: float = WARM_STEP, most: int = MAX_WARM, quiet: float = WARM_QUIET_S
             ) -> int:
        """Compute and keep the groups at ``around`` plus or minus whole steps (within the
        thresholds this regrouper serves, up to 1.0), nearest first, ``most`` of them at most:
        see the module's docstring. Each waits while a move asked for by :meth:`grouped` is
        under way and until ``quiet`` seconds after the last one was done; ``stop`` is asked
        before each (and while waiting): True ends the warming.
        Returns the number of thresholds computed (those already kept are kept for good
        without computing them again). No more than :data:`MAX_WARM` are kept in all: those
        farthest from ``around`` make room for the nearer. Meant for a thread of its own."""
        if not (step > 0 and math.isfinite(step)):
            raise ValueError(f"step must be a positive number, not {step!r}")
        stop = stop or (lambda: False)
        low = max(self.valid_from, 0.0)
        reach = min(math.ceil(1.0 / step) + 1, 100_000)
        targets = sorted({round(around + k * step, 6) for k in range(-reach, reach + 1)
                          if k and low - 1e-9 <= around + k * step <= 1.0 + 1e-9},
                         key=lambda x: (abs(x - around), x))
        targets = [min(max(x, low), 1.0) for x in targets[:max(0, min(most, MAX_WARM))]]
        made = 0
        for t in targets:
            with self._asked:
                while not stop() and (self._moving or time.monotonic() - self._moved_at < quiet):
                    self._asked.wait(0.05)
                if stop():
                    break
                if any(g.threshold == t for g in self._warm):
                    continue
                kept = next((g for g in self._states if g.threshold == t), None)
                if kept is not None:
                    self._warm.append(kept)
                    continue
            state = self._at(t)
            made += 1
            with self._lock:
                if not any(g.threshold == t for g in self._warm):
                    self._warm.append(state)
                    self._make_room(around, targets)
        return made

    def _make_room(self, around: float, wanted: list[float]) -> None:
        """Drop kept warmed states beyond :data:`MAX_WARM`, the farthest from ``around``
        first, never one of ``wanted`` (at most that many: the room is always made)."""
        spare = sorted((g for g in self._warm if g.threshold not in wanted),
                       key=lambda g: -abs(g.threshold - around))
        extra = len(self._warm) - MAX_WARM
        if extra > 0:
            gone = {id(g) for g in spare[:extra]}
            self._warm = [g for g in self._warm if id(g) not in gone]

    def full(self, threshold: float) -> Grouped:
        """The groups at ``threshold`` computed from scratch."""
        inp = self.inputs
        cohesive = inp.mode == GroupMode.COHESIVE
        unsettled = np.zeros(inp.n, dtype=bool) if cohesive else None
        forest = self._spanning()
        with self._lock:
            rooted = self._rooted
        parts = rooted.components(threshold) if rooted is not None and (
            forest is not None or cohesive) else None
        side = inp.n >= SIDE_BY_SIDE_DOCS
        if inp.mode == GroupMode.CONNECTED:  # (its labels are read off its groups)
            table = groups_at(inp, threshold, unsettled, forest, parts, parallel=side)
            return Grouped(threshold, table, self._labels(threshold, table), unsettled)
        label, table = side_by_side(
            lambda: self._labels(threshold, None),
            lambda: groups_at(inp, threshold, unsettled, forest, parts, parallel=side),
            parallel=side)
        return Grouped(threshold, table, label, unsettled)

    def _labels(self, threshold: float, table: GroupTable | None,
                docs: np.ndarray | None = None) -> np.ndarray:
        """:func:`component_labels` at ``threshold`` (of the documents ``docs`` alone, sorted,
        renumbered as :meth:`GroupingInputs.restrict` numbers them, whose groups are
        ``table``), the cheapest way known: CONNECTED's groups are the components of two
        documents or more; in the other modes the forest's edges at the threshold have the
        components of all the edges (a tenth of them or fewer to join, at 10^6 documents
        80-100 ms a jump less); before the forest is computed, every edge. Only CONNECTED
        reads ``table``: the other modes' labels can be computed beside their groups."""
        inp = self.inputs
        n = inp.n if docs is None else docs.shape[0]
        if inp.mode == GroupMode.CONNECTED:
            if table is None:
                raise ValueError("CONNECTED's labels are read off its groups")
            label = np.arange(n, dtype=np.int64)
            if table.members.size:
                starts = table.offsets[:-1]
                low = np.minimum.reduceat(table.members, starts)
                label[table.members] = np.repeat(low, np.diff(table.offsets))
            return label
        with self._lock:
            forest, rooted = self._forest, self._rooted
        if forest is None:
            return component_labels(inp if docs is None else inp.restrict(docs), threshold)
        if docs is None and rooted is not None:
            return rooted.names(threshold)
        fa, fb, fw = forest
        if docs is not None:
            fa, fb, inside = renumbered_pairs(fa, fb, renumbering(inp.n, docs))
            fw = np.where(inside, fw, -np.inf)
        at = np.flatnonzero(fw >= float(np.float32(threshold)))
        return _by_lowest(n, *components(n, fa[at], fb[at]))

    def _spanning(self, docs: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """CONNECTED's forest, once computed (:meth:`prepare`, the first move), for
        :func:`groups_at`; of the documents ``docs`` (sorted) alone, renumbered as
        :meth:`GroupingInputs.restrict` numbers them. None for the other modes, and when
        chosen references link documents (a link's weight there depends on the threshold)."""
        inp = self.inputs
        with self._lock:
            forest = self._forest
        if inp.mode != GroupMode.CONNECTED or forest is None or (
                inp.shadow is not None and bool(np.isfinite(inp.shadow).any())):
            return None
        fa, fb, fw = forest
        if docs is None:
            return fa, fb, fw
        na, nb, inside = renumbered_pairs(fa, fb, renumbering(inp.n, docs))
        inside = np.flatnonzero(inside)
        return na[inside], nb[inside], fw[inside]

    def prepare(self, *, edges: bool = True) -> None:
        """Compute what a move reads besides the kept groups ahead of it: the forest
        (CONNECTED's and COHESIVE's moves read it; STRICT's and COHESIVE's read their
        components at a threshold off it), rooted (:mod:`~neardup_core.grouping.forest`);
        with ``edges``, the mode's tables over the edges (:meth:`edge_tables`; False: the
        caller computes them beside)."""
        forest = self.forest()
        with self._lock:
            rooting, self._rooting_tried = not self._rooting_tried, True
        if rooting:
            rooted = rooted_forest(self.inputs.n, *forest)
            with self._lock:
                self._rooted = rooted
        if edges:
            self.edge_tables()

    def edge_tables(self) -> None:
        """Compute the tables over the edges that the mode's moves read and that need no
        forest (so a caller may compute them beside :meth:`prepare`): STRICT's edges between
        texts (:attr:`GroupingInputs.text_edges`), CONNECTED's edges scored otherwise than
        ``pair_scores`` scores them (:attr:`GroupingInputs.scored_otherwise`)."""
        if self.inputs.mode == GroupMode.STRICT:
            _ = self.inputs.text_edges  # every move filters them (None: it cannot)
        elif self.inputs.mode == GroupMode.CONNECTED:
            _ = self.inputs.scored_otherwise  # every step reads it

    def forest(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A maximum spanning forest of :func:`mode_graph` (computed at the first move)."""
        with self._lock:
            if self._forest is None:
                self._forest = max_spanning_forest(self.inputs.n, *mode_graph(self.inputs))
            return self._forest

    def dirty(self, prev: Grouped, threshold: float, limit: float | None = None
              ) -> np.ndarray:
        """Per document, whether a move from ``prev`` to ``threshold`` may change its group;
        with ``limit``, possibly only some of them once they are more than ``limit`` (a move
        past :data:`FULL_SHARE` regroups from scratch and reads no more than that).

        STRICT reads every link: a component with an edge between the two thresholds is
        grouped again. CONNECTED's groups are components, each member scored against the
        best-ranked by their edge, if they have one at the threshold: only components that
        split or join (a forest edge between the thresholds) or whose reference gains or
        loses an edge scoring otherwise than ``pair_scores`` (which scores it when it is not
        a link). A COHESIVE component that is whole (no two texts below the floor)
        is one group whatever its links: only those that split or join, those a rising
        floor may split, and those that were not whole.
        """
        inp = self.inputs
        lo, hi = sorted((prev.threshold, threshold))
        label = prev.label
        hit = np.zeros(inp.n, dtype=bool)
        if prev.unsettled is not None:  # whole components: the count is their documents'
            if limit is not None and np.count_nonzero(prev.unsettled) > limit:
                return prev.unsettled.copy()  # (a long jump from high thresholds: 12 ms less)
            hit[label[np.flatnonzero(prev.unsettled)]] = True
        band = None  # the links scoring between the two (COHESIVE reads none of them)
        if inp.mode != GroupMode.COHESIVE:
            band = _in_band(inp.s, lo, hi)
            if inp.shadow is not None:  # a reference link appears where the scan's pair goes
                band |= _in_band(inp.shadow, lo, hi)
        if inp.mode == GroupMode.STRICT:
            at = np.flatnonzero(band)
            starts = [inp.a[at], inp.b[at]]
        else:
            fa, fb, fw = self.forest()
            split = np.flatnonzero(_in_band(fw, lo, hi))
            starts = [fa[split], fb[split]]
            if inp.shadow is not None:  # the score of a link changes from the pair's to the
                swap = np.flatnonzero(_in_band(inp.shadow, lo, hi))  # reference's (a
                starts += [inp.a[swap], inp.b[swap]]  # different edge)
        for x in starts:
            hit[label[x]] = True
        if prev.unsettled is not None:
            f_old, f_new = _floor(inp, prev.threshold), _floor(inp, threshold)
            if f_new > f_old:
                if limit is not None:  # enough already? (a long jump up from 0.6: 10 ms less)
                    moved = hit[label]
                    if np.count_nonzero(moved) > limit:
                        return moved
                fine = np.flatnonzero(_in_band(inp.s, f_old, f_new))
                fine = fine[label[inp.a[fine]] == label[inp.b[fine]]]
                hit[label[inp.a[fine]]] = True
        if band is not None and inp.mode == GroupMode.CONNECTED:
            if limit is not None:  # too many already: the scoring below is not needed (on
                moved = hit[label]  # a long jump at 10^6 documents, 5-40 ms of MinHash rows)
                if np.count_nonzero(moved) > limit:
                    return moved
            table = prev.table
            is_ref = np.zeros(inp.n, dtype=bool)
            is_ref[table.members[table.offsets[:-1]]] = True
            # an edge scoring as pair_scores does changes nothing when it comes or goes
            known = inp.__dict__.get("scored_otherwise")  # (prepared: see edge_tables)
            if known is not None:
                band &= known
            near = np.flatnonzero(band & (is_ref[inp.a] | is_ref[inp.b]))
            near = near[~(hit[label[inp.a[near]]] & hit[label[inp.b[near]]])]
            if known is None:  # scored last, and only in components nothing else moves:
                # scoring pairs reads two rows of the MinHash table each, most of a long
                # jump's time at a million documents
                got = inp.pair_scores(inp.a[near], inp.b[near])[0]
                near = near[np.asarray(got, dtype=np.float64) != inp.s[near]]
            hit[label[inp.a[near]]] = True
            hit[label[inp.b[near]]] = True
        return hit[label]

    def step(self, prev: Grouped, threshold: float) -> Grouped:
        """The groups at ``threshold`` from those at ``prev``'s."""
        inp = self.inputs
        moved = self.dirty(prev, threshold, FULL_SHARE * inp.n)
        docs = np.flatnonzero(moved)
        if not docs.size:
            return Grouped(threshold, prev.table, prev.label, prev.unsettled)
        if docs.size > FULL_SHARE * inp.n:
            return self.full(threshold)
        side = docs.size >= SIDE_BY_SIDE_DOCS
        sub = inp.restrict(docs, parallel=side)
        part_unsettled = None if prev.unsettled is None else np.zeros(docs.size, dtype=bool)
        if inp.mode == GroupMode.CONNECTED:  # (its labels are read off its groups)
            part = groups_at(sub, threshold, part_unsettled, self._spanning(docs),
                             parallel=side)
            part_label = self._labels(threshold, part, docs)
        else:
            part_label, part = side_by_side(
                lambda: self._labels(threshold, None, docs),
                lambda: groups_at(sub, threshold, part_unsettled, self._spanning(docs),
                                  parallel=side),
                parallel=side)
        label = prev.label.copy()
        label[docs] = docs[part_label]
        unsettled = None
        if prev.unsettled is not None:
            unsettled = prev.unsettled.copy()
            unsettled[docs] = part_unsettled
        return Grouped(threshold, merge_tables(inp.n, prev.table, moved, part, docs), label,
                       unsettled)


def merge_tables(n: int, old: GroupTable, moved: np.ndarray, part: GroupTable,
                 docs: np.ndarray) -> GroupTable:
    """``old``'s groups whose documents did not move, with ``part``'s (grouped over ``docs``,
    numbered 0..k-1), in the table's order: largest first, then by reference."""
    o_start = old.offsets[:-1]
    o_size = np.diff(old.offsets)
    keep = ~moved[old.members[o_start]] if o_start.size else np.zeros(0, dtype=bool)
    o_start, o_size = o_start[keep], o_size[keep]
    p_members = docs[part.members]
    p_start = part.offsets[:-1]
    p_size = np.diff(part.offsets)
    biggest = int(max(o_size.max(initial=0), p_size.max(initial=0)))
    o_key = (biggest - o_size) * n + old.members[o_start]
    p_key = (biggest - p_size) * n + p_members[p_start]
    count = o_key.size + p_key.size
    at_new = np.searchsorted(o_key, p_key) + np.arange(p_key.size)
    new = np.zeros(count, dtype=bool)
    new[at_new] = True
    start = np.empty(count, dtype=np.int64)
    size = np.empty(count, dtype=np.int64)
    start[~new], size[~new] = o_start, o_size
    start[new], size[new] = p_start + old.members.size, p_size
    take = run_positions(start, size)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(size, out=offsets[1:])

    def joined(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.concatenate([x, y])[take]

    weakest = np.empty(count, dtype=np.float32)
    weakest[~new], weakest[new] = old.weakest[keep], part.weakest
    exact = np.empty(count, dtype=bool)
    exact[~new], exact[new] = old.exact[keep], part.exact
    return GroupTable(offsets=offsets, members=joined(old.members, p_members),
                      similarity=joined(old.similarity, part.similarity),
                      distance=joined(old.distance, part.distance),
                      jaccard=joined(old.jaccard, part.jaccard), weakest=weakest, exact=exact)
