"""Permuted-table index over 64-bit SimHash fingerprints: who is within k bits of whom.

Design (Manku, Jain & Das Sarma, "Detecting Near-Duplicates for Web Crawling", WWW 2007).
Split the 64 bits into B contiguous blocks. Two fingerprints at Hamming distance <= k differ in
at most k blocks, so (pigeonhole) at least B - k blocks are identical. For every choice of B - k
blocks there is one *table*: the fingerprints keyed by those blocks put in front (the permuted
prefix), sorted. Any pair within distance k shares the whole prefix in at least one table, so it
is found by looking only inside equal-prefix runs and checking ``popcount(x ^ y) <= k`` there.

Choosing B is the paper's trade-off. There are ``T = C(B, k)`` tables and their prefixes are at
least ``p = (B - k) * floor(64 / B)`` bits wide. More tables cost memory and build time; a wider
prefix means fewer false candidates: a random fingerprint shares a p-bit prefix with about
``n / 2**p`` others per table. We take the smallest B whose prefix reaches ``log2(n)`` bits
(about one false candidate per table and query: k=3 over 10^6 gives B=5, 10 tables of 25+
bits, rather than the 4 tables of 16 bits that leave ~15 false candidates in each), unless a
smaller B is clearly cheaper by a cost model (build ~ T * n, candidates ~ T * n**2 / 2**p),
which happens when reaching log2(n) would take thousands of tables (k=10 over 10^5: B=13,
286 tables of 14+ bits). When even that loses to comparing everything (small inputs, or radii
past ~12 bits on up to ~10^5 fingerprints) a blockwise brute-force comparison is used instead;
results are identical either way.

Costs (m = distinct fingerprints). A table holds its rows' ids (int32) and fingerprints
(uint64) in table order -- the paper's permuted copy -- and a bucket directory of ``2**bits``
int32 offsets, ``bits = min(bit_length(m), 31)`` leading prefix bits: at most ``20 * m`` bytes
per table (k=3 over 10^6: 10 tables, ~160 MB; over 10^5: 4 tables, ~7 MB). Building one is a
gather and an ``np.sort`` of ``key << 32 | row``. Tables are built in ``__init__`` as long as
they fit in ``max_table_bytes``; past that, :meth:`HammingIndex.all_pairs` builds them one at a
time and drops each (memory stays O(m) however many tables k needs), and
:meth:`HammingIndex.query` builds and keeps them all on first use.

A single query (:meth:`HammingIndex.query`) reads, in each table, the bucket of the query's
key and checks its rows' fingerprints by popcount: plain numpy, a few numpy calls per table.
The scan never queries one fingerprint at a time; it asks for all pairs at once.
:meth:`HammingIndex.all_pairs` is vectorised per table: runs of equal keys are compared offset
by offset (all runs at once), long runs as bounded dense blocks, and pairs found by several
tables are merged by one sort.

Identical fingerprints are collapsed before any table is built, so thousands of copies cost one
row per table. :meth:`HammingIndex.all_pairs` still returns every pair between them (c copies
give ``c * (c - 1) / 2`` pairs at distance 0): callers that can have many identical
fingerprints should collapse identical texts first (the scan does), check
:attr:`HammingIndex.duplicate_rows`, or pass ``max_pairs`` to fail early instead of allocating.

One module (some 690 lines): the plan, the tables, the run search that the Dask scan shares
(:func:`run_pairs`) and the expansion of identical copies all read one table layout
(``_Plan``, ``_TableSpec``, ``_Table``), which a split would have to make public.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

from neardup_core.arrays import lowest_in_runs, run_positions, unique_sorted
from neardup_core.threadwork import ThreadWork

#: At most this many permuted tables; beyond it a coarser table plan or brute force is cheaper.
MAX_TABLES = 4096
#: Tables are built up front while they fit in this many bytes (see the module docstring).
DEFAULT_TABLE_BYTES = 256 * 1024 * 1024
#: Equal-prefix runs longer than this are compared as dense blocks instead of offset by offset.
DENSE_RUN = 192
#: Cells (uint64) in one dense comparison block: bounds the memory of big runs (~32 MB).
DENSE_CELLS = 1 << 22
#: Rough seconds per fingerprint per table built, per candidate checked in a run, and per cell
#: of a dense comparison (measured on a 2-core laptop-class machine; only ratios matter).
_COST_BUILD = 60e-9
_COST_PAIR = 12e-9
_COST_DENSE = 4e-9
_MASK64 = (1 << 64) - 1
_BIG_ENDIAN = np.little_endian is False
_EMPTY = np.empty(0, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class _TableSpec:
    """Which blocks lead in one table, and how many key bits its bucket directory uses."""

    blocks: tuple[int, ...]  # block indices, most significant first
    width: int               # prefix bits: sum of the blocks' widths
    bits: int                # directory bits: the top ``bits`` of the prefix, <= width


@dataclass(frozen=True, slots=True)
class _Plan:
    starts: tuple[int, ...]  # lowest bit of each block, most significant block first
    widths: tuple[int, ...]
    tables: tuple[_TableSpec, ...]
    brute: bool              # compare everything blockwise instead of using tables

    @property
    def blocks(self) -> int:
        return len(self.widths)


@dataclass(frozen=True, slots=True)
class _Table:
    perm: np.ndarray  # int32 distinct-row indices sorted by key (ties by row)
    fps: np.ndarray   # uint64 their fingerprints, in the same order (the permuted table)
    offs: np.ndarray  # bucket directory, length 2**bits + 1: positions in perm


def _layout(b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Block starts and widths for b near-equal blocks; the wider ones are the high blocks."""
    base, extra = divmod(64, b)
    widths = tuple(base + 1 if i < extra else base for i in range(b))
    starts = []
    top = 64
    for w in widths:
        top -= w
        starts.append(top)
    return tuple(starts), widths


def _dir_bits(m: int) -> int:
    """Directory bits for m rows: 2**bits > m, so a bucket holds one row or less on average."""
    return min(m.bit_length(), 31)


def plan(m: int, k: int, strategy: str = "auto") -> _Plan:
    """The table layout for m distinct fingerprints searched up to radius k (module docstring)."""
    dir_bits = _dir_bits(m)
    pairs_all = m * (m - 1) / 2
    brute_cost = pairs_all * _COST_DENSE

    def tables_for(b: int) -> tuple[_TableSpec, ...]:
        _, widths = _layout(b)
        out = []
        for chosen in combinations(range(b), b - k):
            width = sum(widths[i] for i in chosen)
            out.append(_TableSpec(tuple(chosen), width, min(width, dir_bits)))
        return tuple(out)

    def cost(b: int) -> float:
        _, widths = _layout(b)
        t = math.comb(b, k)
        bits = min(sum(sorted(widths)[: b - k]), dir_bits)
        return t * (m * _COST_BUILD + pairs_all / 2.0**bits * _COST_PAIR)

    # Candidates: B = k+1 up to the first B whose prefixes reach dir_bits (the paper's choice).
    # That one is kept unless a smaller B is clearly cheaper overall (when reaching log2(n)
    # takes thousands of tables, as for k = 10 over 10^5 fingerprints); if none reaches it
    # within MAX_TABLES, the cheapest.
    costs: dict[int, float] = {}
    reached = False
    if k < 64:
        for b in range(k + 1, 65):
            if math.comb(b, k) > MAX_TABLES:
                break
            costs[b] = cost(b)
            if sum(sorted(_layout(b)[1])[: b - k]) >= dir_bits:
                reached = True
                break
    choice: int | None = None
    if costs:
        last = max(costs)
        cheapest = min(costs, key=costs.__getitem__)
        choice = last if reached and costs[last] <= 1.5 * costs[cheapest] else cheapest
    if choice is None or strategy == "brute" or (strategy == "auto"
                                                 and brute_cost < cost(choice)):
        return _Plan((0,), (64,), (_TableSpec((), 0, 0),), brute=True)
    starts, widths = _layout(choice)
    return _Plan(starts, widths, tables_for(choice), brute=False)


def _as_fingerprints(fingerprints: np.ndarray) -> np.ndarray:
    """uint64 view of the input; signed int64 (e.g. from SQLite) is taken bit for bit."""
    if not isinstance(fingerprints, np.ndarray):  # a sequence of Python ints
        values = list(fingerprints)
        if all(isinstance(v, int | np.integer) for v in values):
            return np.fromiter((int(v) & _MASK64 for v in values), dtype=np.uint64,
                               count=len(values))
    arr = np.asarray(fingerprints)
    if arr.ndim != 1:
        raise ValueError(f"fingerprints must be a 1-D array, got shape {arr.shape}")
    if arr.dtype == np.uint64:
        return np.ascontiguousarray(arr)
    if arr.dtype == np.int64:
        return np.ascontiguousarray(arr).view(np.uint64)
    if arr.size == 0:
        return np.empty(0, dtype=np.uint64)
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"fingerprints must be integers (uint64), got {arr.dtype}")
    if arr.min() < 0:
        raise ValueError("fingerprints must not be negative unless given as int64 bit patterns")
    return arr.astype(np.uint64)


def _table_keys(dfp: np.ndarray, plan: _Plan, spec: _TableSpec) -> np.ndarray:
    """Directory key of every distinct fingerprint in one table: the top bits of its prefix."""
    key = np.zeros(dfp.shape[0], dtype=np.uint64)
    for i, blk in enumerate(spec.blocks):
        w = plan.widths[blk]
        part = dfp >> np.uint64(plan.starts[blk]) if plan.starts[blk] else dfp
        if w < 64:
            part = part & np.uint64((1 << w) - 1)
        key = part if i == 0 else (key << np.uint64(w)) | part  # never shift by 64
    drop = spec.width - spec.bits
    if drop:
        key = key >> np.uint64(drop)  # not in place: key may be the caller's array itself
    return key


def _query_key(plan: _Plan, spec: _TableSpec, q: int) -> int:
    """:func:`_table_keys` of one fingerprint, in Python integers (cheaper than numpy's calls)."""
    key = 0
    for blk in spec.blocks:
        w = plan.widths[blk]
        key = (key << w) | ((q >> plan.starts[blk]) & ((1 << w) - 1))
    return key >> (spec.width - spec.bits)


def _build_table(dfp: np.ndarray, plan: _Plan, spec: _TableSpec) -> _Table:
    """Sort the rows by their key in one table."""
    m = dfp.shape[0]
    key = _table_keys(dfp, plan, spec)
    packed = np.sort((key << np.uint64(32)) | np.arange(m, dtype=np.uint64))
    halves = packed.view(np.uint32).reshape(m, 2)
    if _BIG_ENDIAN:
        halves = halves[:, ::-1]
    perm = halves[:, 0].view(np.int32).copy()  # rows < 2**31
    fps = np.take(dfp, perm)
    counts = np.bincount(halves[:, 1], minlength=1 << spec.bits)
    offs = np.empty((1 << spec.bits) + 1, dtype=np.int32 if m < 2**31 else np.int64)
    offs[0] = 0
    np.cumsum(counts, out=offs[1:])
    return _Table(perm, fps, offs)


class PairLimitExceeded(ValueError):
    """:meth:`HammingIndex.all_pairs` found more pairs than its ``max_pairs``."""


def _over_limit(found: int, limit: int | None) -> None:
    if limit is not None and found > limit:
        raise PairLimitExceeded(f"more than {limit} pairs within the radius (max_pairs)")


def _dense_pairs(fps: np.ndarray, rows: np.ndarray, k: int, window: int | None = None,
                 hub: np.ndarray | None = None, limit: int | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """All (i, j), i before j, of ``rows`` whose fingerprints are within k, in bounded blocks;
    with ``window``, only the first ``window`` such j of each i, and with ``hub`` (a value per
    position, lowest first) also each i with its lowest-hub match, before or after it.
    :class:`PairLimitExceeded` as soon as more than ``limit`` pairs are found."""
    s = fps.shape[0]
    total = 0  # pairs found so far, for ``limit``
    out_a: list[np.ndarray] = []
    out_b: list[np.ndarray] = []
    if window is not None and hub is not None and s > 1:
        # blocks of rows against every position: the star needs matches on both sides
        order_key = hub.astype(np.int64) * np.int64(s) + np.arange(s, dtype=np.int64)
        step = max(1, DENSE_CELLS // s)
        for i0 in range(0, s, step):
            i1 = min(s, i0 + step)
            d = np.bitwise_count(fps[i0:i1, None] ^ fps[None, :]) <= k
            d[np.arange(i1 - i0), np.arange(i0, i1)] = False
            best = np.where(d, order_key[None, :], np.iinfo(np.int64).max).min(axis=1)
            has = best != np.iinfo(np.int64).max
            out_a.append(rows[np.arange(i0, i1)[has]])
            out_b.append(rows[best[has] % s])
    step = max(1, DENSE_CELLS // max(s, 1))
    for i0 in range(0, s - 1, step):
        i1 = min(s - 1, i0 + step)
        d = np.bitwise_count(fps[i0:i1, None] ^ fps[None, i0 + 1:])
        r, c = np.nonzero(d <= k)
        upper = c >= r  # column i0 + 1 + c is after row i0 + r
        r, c = r[upper], c[upper]
        if window is not None and r.size:  # r ascends: a match's rank is its place in its row
            near = np.arange(r.size) - np.searchsorted(r, r) < window
            r, c = r[near], c[near]
        total += r.size
        _over_limit(total, limit)
        out_a.append(rows[r + i0])
        out_b.append(rows[c + i0 + 1])
    if not out_a:
        return _EMPTY, _EMPTY
    return np.concatenate(out_a).astype(np.int64), np.concatenate(out_b).astype(np.int64)


def run_pairs(sfp: np.ndarray, perm: np.ndarray, offs: np.ndarray, k: int,
               window: int | None = None, hub: np.ndarray | None = None,
               limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pairs within k inside the equal-key runs of one table (rows are distinct indices).

    Small runs are walked by offset: round ``delta`` compares every sorted position with the one
    ``delta`` places later while both are in the same run, all runs at once. Runs longer than
    ``DENSE_RUN`` would need as many rounds, so they are compared as dense blocks instead.
    With ``window``, a row keeps only its first ``window`` matches among the later rows of its
    run (a row with fewer keeps them all, so sparse data is unchanged), and with ``hub`` (a
    value per sorted position, lowest first) every row of a run longer than ``window + 1`` is
    also paired with the run's lowest-hub row when they are within k. :class:`PairLimitExceeded`
    as soon as more than ``limit`` pairs are found (the pairs of one table are distinct).
    """
    counts = np.diff(offs)
    m = sfp.shape[0]
    rem = np.repeat(offs[1:], counts) - np.arange(m) - 1  # later rows in my run
    out_a: list[np.ndarray] = []
    out_b: list[np.ndarray] = []
    found = np.zeros(m, dtype=np.int64) if window is not None else None
    if window is not None and hub is not None:
        long_runs = np.flatnonzero(counts > window + 1)
        if long_runs.size:
            c = counts[long_runs]
            pos = run_positions(offs[long_runs], c)
            centre = np.repeat(pos[lowest_in_runs(hub[pos], c)], c)
            x = (pos != centre) & (np.bitwise_count(sfp[pos] ^ sfp[centre]) <= k)
            out_a.append(perm[centre[x]].astype(np.int64))
            out_b.append(perm[pos[x]].astype(np.int64))
    total = 0
    for run in np.flatnonzero(counts > DENSE_RUN).tolist():
        lo, hi = int(offs[run]), int(offs[run + 1])
        a, b = _dense_pairs(sfp[lo:hi], perm[lo:hi], k, window,
                            limit=None if limit is None else limit - total)
        total += a.size
        out_a.append(a)
        out_b.append(b)
        rem[lo:hi] = 0
    pos = np.flatnonzero(rem > 0)
    rem = rem[pos]
    delta = 1
    while pos.size:
        x = np.bitwise_count(sfp[pos] ^ sfp[pos + delta]) <= k
        if found is not None:
            x &= found[pos] < window
        if x.any():
            hit = pos[x]
            total += hit.size
            _over_limit(total, limit)
            out_a.append(perm[hit].astype(np.int64))
            out_b.append(perm[hit + delta].astype(np.int64))
            if found is not None:
                found[hit] += 1
        delta += 1
        live = rem >= delta
        if found is not None:
            live &= found[pos] < window
        pos, rem = pos[live], rem[live]
    if not out_a:
        return _EMPTY, _EMPTY
    return np.concatenate(out_a), np.concatenate(out_b)


class HammingIndex:
    """Finds fingerprints within a Hamming radius of each other without comparing all pairs.

    >>> idx = HammingIndex(np.array([0, 1, 3, 2**63], dtype=np.uint64), max_k=1)
    >>> idx.query(0).tolist()
    [0, 1, 3]
    >>> [x.tolist() for x in idx.all_pairs()]
    [[0, 0, 1], [1, 3, 2], [1, 1, 1]]

    ``strategy`` forces the permuted tables or brute force (tests, benchmarks); "auto" picks
    the cheaper one. ``build_later``: tables that fit in ``max_table_bytes`` are built by
    the first :meth:`all_pairs` given threads, each on the thread that searches it (and kept
    as when built here), rather than here one after another: the scan builds its index in
    the one process that waits on it (0.014 s at 40,000 files, issue 22).
    """

    def __init__(self, fingerprints: np.ndarray, max_k: int = 3, *,
                 max_table_bytes: int = DEFAULT_TABLE_BYTES,
                 strategy: Literal["auto", "tables", "brute"] = "auto",
                 build_later: bool = False) -> None:
        if isinstance(max_k, bool) or not isinstance(max_k, int | np.integer) \
                or not 0 <= max_k <= 64:
            raise ValueError(f"max_k must be an integer in [0, 64], got {max_k!r}")
        if strategy not in ("auto", "tables", "brute"):
            raise ValueError(f"strategy must be 'auto', 'tables' or 'brute', got {strategy!r}")
        fps = _as_fingerprints(fingerprints)
        n = fps.shape[0]
        if n >= 2**31:
            raise ValueError("at most 2**31 - 1 fingerprints per index")
        self.max_k = int(max_k)
        self._n = n
        #: Whether the last all_pairs(window=...) left pairs within k out (see all_pairs).
        self.windowed = False
        # Collapse identical fingerprints: rows of the tables are distinct values. The common
        # case (no repeats) keeps the input order, so a row is its id, and costs one sort.
        sfp = np.sort(fps)
        if n < 2 or bool((sfp[1:] != sfp[:-1]).all()):
            shared = isinstance(fingerprints, np.ndarray) and np.may_share_memory(fps,
                                                                                  fingerprints)
            self._dfp = fps.copy() if shared else fps  # never the caller's array
            self._members = np.arange(n, dtype=np.int64)          # row -> original id
            self._mstart = np.arange(n + 1, dtype=np.int64)
            self._unique = True
        else:
            order = np.argsort(fps, kind="stable")
            sfp = fps[order]
            first = np.ones(n, dtype=bool)
            first[1:] = sfp[1:] != sfp[:-1]
            starts = np.flatnonzero(first)
            self._dfp = np.ascontiguousarray(sfp[starts])         # distinct values, ascending
            self._members = order.astype(np.int64)                # ids by value, then by id
            self._mstart = np.append(starts, n).astype(np.int64)  # CSR: row -> its ids
            self._unique = False
        m = self._dfp.shape[0]
        self._plan = plan(m, self.max_k, strategy)
        self._tables: list[_Table | None] = [None] * len(self._plan.tables)
        #: the tables fit, and are built (and kept) by the first search on threads
        self._kept_later = False
        if not self._plan.brute and m >= 2 and self.table_bytes <= max_table_bytes:
            if build_later:
                self._kept_later = True
            else:
                self._build_all()

    # -- introspection ----------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    @property
    def distinct(self) -> int:
        """Distinct fingerprint values (rows per table)."""
        return int(self._dfp.shape[0])

    @property
    def duplicate_rows(self) -> int:
        """Fingerprints that repeat an earlier value; each adds distance-0 pairs to all_pairs."""
        return self._n - self.distinct

    @property
    def tables(self) -> int:
        """Permuted tables in the plan (0 when brute force is cheaper)."""
        return 0 if self._plan.brute else len(self._plan.tables)

    @property
    def blocks(self) -> int:
        """Blocks the 64 bits are cut into (0 when brute force is cheaper)."""
        return 0 if self._plan.brute else self._plan.blocks

    @property
    def table_bytes(self) -> int:
        """Memory all tables take once built (what ``max_table_bytes`` is compared with)."""
        if self._plan.brute:
            return 0
        m = self.distinct
        return sum(12 * m + 4 * ((1 << spec.bits) + 1) for spec in self._plan.tables)

    def _check_k(self, k: int | None) -> int:
        if k is None:
            return self.max_k
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 0 <= k <= self.max_k:
            raise ValueError(f"k must be an integer in [0, max_k={self.max_k}], got {k!r}")
        return int(k)

    def _build_all(self) -> None:
        """Every table, kept (a query reads them all)."""
        self._kept_later = False
        for t, spec in enumerate(self._plan.tables):
            if self._tables[t] is None:
                self._tables[t] = _build_table(self._dfp, self._plan, spec)

    def _table(self, t: int) -> _Table:
        tab = self._tables[t]
        return tab if tab is not None else _build_table(self._dfp, self._plan,
                                                        self._plan.tables[t])

    # -- single queries ---------------------------------------------------------------------
    def query(self, fp: int, k: int | None = None) -> np.ndarray:
        """Ids (ascending int64) of every fingerprint within Hamming distance k of ``fp``.

        In each table the query's key picks one bucket (the rows sharing the top bits of its
        prefix); the bucket's fingerprints are checked by popcount. A fingerprint within k
        shares its whole prefix with the query in at least one table, so it is found there.
        """
        kk = self._check_k(k)
        q = int(fp)
        if not 0 <= q <= _MASK64:
            if not -(1 << 63) <= q < 0:
                raise ValueError(f"fingerprint {fp!r} does not fit in 64 bits")
            q &= _MASK64  # an int64 bit pattern
        m = self._dfp.shape[0]
        if m == 0:
            return np.empty(0, dtype=np.int64)
        qv = np.array([q], dtype=np.uint64)
        if self._plan.brute or m < 2:
            rows = np.flatnonzero(np.bitwise_count(self._dfp ^ qv) <= kk)
            return self._expand_rows(rows)
        if any(tab is None for tab in self._tables):
            self._build_all()  # over the memory budget at construction: built on first query
        found = []
        for tab, spec in zip(self._tables, self._plan.tables, strict=True):
            assert tab is not None
            g = _query_key(self._plan, spec, q)
            lo, hi = int(tab.offs[g]), int(tab.offs[g + 1])
            if hi > lo:
                near = np.bitwise_count(tab.fps[lo:hi] ^ qv) <= kk
                found.append(tab.perm[lo:hi][near])
        if not found:
            return np.empty(0, dtype=np.int64)
        return self._expand_rows(unique_sorted(np.concatenate(found).astype(np.int64)))

    def _expand_rows(self, rows: np.ndarray) -> np.ndarray:
        """Original ids of distinct rows, ascending."""
        if rows.size == 0:
            return np.empty(0, dtype=np.int64)
        if self._unique:
            return np.sort(self._members[rows])
        lo, hi = self._mstart[rows], self._mstart[rows + 1]
        cnt = hi - lo
        idx = np.repeat(lo - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))
        return np.sort(self._members[idx])

    # -- all pairs --------------------------------------------------------------------------
    def all_pairs(self, k: int | None = None, *, max_pairs: int | None = None,
                  window: int | None = None, hubs: np.ndarray | None = None,
                  work: ThreadWork | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair of ids within distance k, once: (a, b, distance), a < b, sorted by (a, b).

        Pairs between identical fingerprints are included (see the module docstring); with
        ``max_pairs`` set, :class:`PairLimitExceeded` (a ``ValueError``) is raised as soon as
        more pairs than that are found, before they are all computed or allocated.

        ``window`` bounds the output for clusters of near-identical fingerprints, where every
        pair is within k and their number grows with the square of the cluster: each row then
        keeps only its first ``window`` matches among the later rows of its equal-key run in
        each table (sorted by the rest of the key, so the likeliest to be close), copies of one
        fingerprint are linked as a chain (each with its next ``window`` copies), and two values
        within k pair at most ``window`` of their copies each. Rows with fewer matches keep them
        all: where no cluster is that dense, the pairs are all the pairs. Otherwise they are a
        subset of all pairs within k that still links every cluster of copies and every value
        to some of its neighbours; :attr:`windowed` tells whether the window cut anything.
        Without ``window`` (the default) every pair is returned.

        ``hubs`` (an integer per id, lowest first; only with ``window``) adds a star wherever
        the window cuts: each row of a long run is also paired with the run's row of lowest
        hub, each copy of a value with its lowest-hub copy, and each copy of a value with more
        copies than the window with the lowest-hub copy of its lowest-hub neighbour value. A
        scan passes its reference ranks: the file a group of thousands of near-copies keeps is
        then paired with each of them.

        ``work``: the tables are searched on its threads, a table a task, when they are all
        built or fit to be kept (each then built in its task; NumPy's calls release the GIL);
        the pairs are the same.
        """
        kk = self._check_k(k)
        if window is not None and window < 1:
            raise ValueError(f"window must be at least 1, got {window!r}")
        value_hub = None
        if hubs is not None and window is not None:
            hubs = np.asarray(hubs, dtype=np.int64)
            if hubs.shape != (self._n,):
                raise ValueError(f"hubs must hold one value per fingerprint ({self._n}), got "
                                 f"{hubs.shape}")
            value_hub = hubs if self._unique else np.minimum.reduceat(
                hubs[self._members], self._mstart[:-1])
        self.windowed = False
        m = self._dfp.shape[0]
        if self._n < 2:
            return _EMPTY.copy(), _EMPTY.copy(), np.empty(0, dtype=np.uint8)
        if self._plan.brute or m < 2:
            u, v = _dense_pairs(self._dfp, np.arange(m, dtype=np.int64), kk, window, value_hub,
                                limit=max_pairs)
            if window is not None and u.size:
                self.windowed = bool(np.bincount(u, minlength=m).max() >= window)
        else:
            def table_pairs(t: int) -> tuple[np.ndarray, np.ndarray, bool]:
                tab = self._table(t)  # built and dropped here when it was not kept
                if self._kept_later:  # ... unless it fits: kept, as if built at the start
                    self._tables[t] = tab
                a, b = run_pairs(tab.fps, tab.perm, tab.offs, kk, window,
                                  None if value_hub is None else value_hub[tab.perm],
                                  limit=max_pairs)
                # some row kept only its first ``window`` matches?
                cut = window is not None and a.size > 0 and \
                    int(np.bincount(a, minlength=m).max()) >= window
                return a, b, cut

            tables = range(len(self._plan.tables))
            # on threads only when the tables are built: one built per task would hold as
            # many at once as there are threads
            found = work.map(table_pairs, tables) if work is not None and (
                self._kept_later or all(tab is not None for tab in self._tables)) \
                else [table_pairs(t) for t in tables]
            self._kept_later = False  # every table is built now
            self.windowed = any(cut for _, _, cut in found)
            u = np.concatenate([a for a, _, _ in found])
            v = np.concatenate([b for _, b, _ in found])
            del found
            if u.size:  # a pair shared by several tables is found once per table
                lo = np.minimum(u, v).astype(np.uint64)
                hi = np.maximum(u, v).astype(np.uint64)
                code = np.sort(lo * np.uint64(m) + hi)  # unique by sorting: numpy's
                new = np.ones(code.size, dtype=bool)    # hashing np.unique is far slower
                new[1:] = code[1:] != code[:-1]
                code = code[new]
                u = (code // np.uint64(m)).astype(np.int64)
                v = (code % np.uint64(m)).astype(np.int64)
        return self._expand_pairs(u, v, max_pairs, window, hubs)

    def _expand_pairs(self, u: np.ndarray, v: np.ndarray, max_pairs: int | None,
                      window: int | None = None, hubs: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Turn pairs of distinct values into pairs of ids, adding pairs among identical copies
        (with ``window``, a bounded subset of them: see :meth:`all_pairs`)."""
        n = self._n
        if hubs is not None and window is not None and u.size:  # stars repeat some pairs
            code = unique_sorted(np.minimum(u, v).astype(np.uint64) * np.uint64(max(n, 1))
                                 + np.maximum(u, v).astype(np.uint64))
            u = (code // np.uint64(max(n, 1))).astype(np.int64)
            v = (code % np.uint64(max(n, 1))).astype(np.int64)
        dist = np.bitwise_count(self._dfp[u] ^ self._dfp[v]).astype(np.uint8)
        if window is not None and not self._unique:
            return self._expand_windowed(u, v, dist, window, hubs)
        if self._unique:
            total = u.shape[0]
            if max_pairs is not None and total > max_pairs:
                raise PairLimitExceeded(f"{total} pairs within the radius exceed "
                                        f"max_pairs={max_pairs}")
            a, b = self._members[u], self._members[v]
        else:
            cnt = np.diff(self._mstart)
            cu, cv = cnt[u], cnt[v]
            cross = cu * cv
            dup = np.flatnonzero(cnt > 1)
            within = cnt[dup] * (cnt[dup] - 1) // 2
            total = int(cross.sum()) + int(within.sum())
            if max_pairs is not None and total > max_pairs:
                raise PairLimitExceeded(
                    f"{total} pairs within the radius exceed max_pairs={max_pairs} "
                    f"({self.duplicate_rows} fingerprints repeat another exactly; collapse "
                    f"identical documents first)")
            # cartesian products of the two values' members
            nc = int(cross.sum())
            pid = np.repeat(np.arange(u.shape[0]), cross)
            local = np.arange(nc) - np.repeat(np.cumsum(cross) - cross, cross)
            cvp = cv[pid]
            a1 = self._members[self._mstart[u[pid]] + local // cvp]
            b1 = self._members[self._mstart[v[pid]] + local % cvp]
            d1 = dist[pid]
            # all pairs among copies of one value (distance 0)
            nw = int(within.sum())
            gid = np.repeat(np.arange(dup.shape[0]), within)
            lw = np.arange(nw) - np.repeat(np.cumsum(within) - within, within)
            j = ((1 + np.sqrt(1 + 8 * lw.astype(np.float64))) // 2).astype(np.int64)
            j -= (j * (j - 1) // 2 > lw)          # float rounding fix-ups
            j += ((j + 1) * j // 2 <= lw)
            i = lw - j * (j - 1) // 2
            base = self._mstart[dup][gid]
            a2, b2 = self._members[base + i], self._members[base + j]
            a = np.concatenate([a1, a2])
            b = np.concatenate([b1, b2])
            dist = np.concatenate([d1, np.zeros(nw, dtype=np.uint8)])
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        order = np.argsort(lo.astype(np.uint64) * np.uint64(n) + hi.astype(np.uint64))
        return lo[order].astype(np.int64), hi[order].astype(np.int64), dist[order]

    def _expand_windowed(self, u: np.ndarray, v: np.ndarray, dist: np.ndarray, window: int,
                         hubs: np.ndarray | None = None
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_expand_pairs` for a window: the first ``window`` copies of each value of a
        pair against each other, and the copies of one value as a chain of ``window`` links."""
        n = self._n
        cnt = np.diff(self._mstart)
        if int(cnt.max(initial=0)) > window:
            self.windowed = True
        cu, cv = np.minimum(cnt[u], window), np.minimum(cnt[v], window)
        cross = cu * cv
        nc = int(cross.sum())
        pid = np.repeat(np.arange(u.shape[0]), cross)
        local = np.arange(nc) - np.repeat(np.cumsum(cross) - cross, cross)
        cvp = cv[pid]
        parts_a = [self._members[self._mstart[u[pid]] + local // cvp]]
        parts_b = [self._members[self._mstart[v[pid]] + local % cvp]]
        parts_d = [dist[pid]]
        starts = self._mstart[:-1]
        for step in range(1, min(window, int(cnt.max(initial=1)) - 1) + 1):
            many = np.flatnonzero(cnt > step)  # values with a copy ``step`` places further on
            links = cnt[many] - step
            first = run_positions(starts[many], links)
            parts_a.append(self._members[first])
            parts_b.append(self._members[first + step])
            parts_d.append(np.zeros(first.shape[0], dtype=np.uint8))
        if hubs is not None and int(cnt.max(initial=0)) > window:
            # the lowest-hub copy of each value: linked to its other copies, and to every copy
            # of each value within k of it
            centre = self._members[lowest_in_runs(hubs[self._members], cnt)]
            big = np.flatnonzero(cnt > window + 1)
            if big.size:
                c = cnt[big]
                ids = self._members[run_positions(self._mstart[big], c)]
                parts_a.append(np.repeat(centre[big], c))
                parts_b.append(ids)
                parts_d.append(np.zeros(ids.shape[0], dtype=np.uint8))
            # a value with more copies than the window is also linked, copy by copy, to the
            # centre of its lowest-hub neighbour value (one per value: at most n pairs in all)
            xs, ys, ds = np.concatenate((u, v)), np.concatenate((v, u)), np.concatenate((dist,
                                                                                        dist))
            wide = cnt[ys] > window
            xs, ys, ds = xs[wide], ys[wide], ds[wide]
            if xs.size:
                m = cnt.shape[0]
                order = np.lexsort((hubs[centre[xs]] * np.int64(m) + xs, ys))
                xs, ys, ds = xs[order], ys[order], ds[order]
                first = np.ones(ys.shape[0], dtype=bool)
                first[1:] = ys[1:] != ys[:-1]
                xs, ys, ds = xs[first], ys[first], ds[first]
                c = cnt[ys]
                ids = self._members[run_positions(self._mstart[ys], c)]
                parts_a.append(np.repeat(centre[xs], c))
                parts_b.append(ids)
                parts_d.append(np.repeat(ds, c))
        a, b = np.concatenate(parts_a), np.concatenate(parts_b)
        d = np.concatenate(parts_d)
        keep = a != b
        a, b, d = a[keep], b[keep], d[keep]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        code = lo.astype(np.uint64) * np.uint64(n) + hi.astype(np.uint64)
        code, first = np.unique(code, return_index=True)  # sorted, each pair once
        return lo[first].astype(np.int64), hi[first].astype(np.int64), d[first]
