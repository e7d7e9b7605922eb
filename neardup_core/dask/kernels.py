"""The work inside a Dask scan's tasks: plain numpy and pandas, no dask import.

:mod:`neardup_core.dask.session` builds the task graph; the functions here run in the workers, one
batch of files or one partition of a dataframe at a time. Keeping them free of dask makes each
one a pure function of its inputs (testable on a pandas frame) and keeps the graph code short.

Reading reuses the local scan's own batch function (:func:`neardup_core.scan.worker.process_batch`),
so a file gives the same text, fingerprint and problem message on a cluster as on a laptop.
The pair search reuses the core's index pieces: the permuted-table plan and the run comparison
of :mod:`neardup_core.pairs.hamming_index`,
the band hash and the bucket rule of :mod:`neardup_core.pairs.lsh`.
Those are module-private names there; the lead may make them public (see the Dask report).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from neardup_core.extract import FileEntry
from neardup_core.fingerprint import boilerplate as bp
from neardup_core.fingerprint.fingerprinter import FingerprintSettings
from neardup_core.fingerprint.winnowing import WinnowSets
from neardup_core.models import Problem
from neardup_core.pairs.hamming_index import PairLimitExceeded, run_pairs
from neardup_core.pairs.lsh import band_hashes, crowded_run_pairs, pairs_in_runs
from neardup_core.pairs.scoring import minhash_agreement, simhash_similarity
from neardup_core.scan.worker import process_batch

#: format, encoding, confidence, replaced, chars, text_hash, skipped (what was not compared, or
#: None): what the client keeps of a document.
DocMeta = tuple[str, str | None, float | None, int, int, str, str | None]

#: Fingerprinting is pure Python for the most part and its segmenter is shared per process, so a
#: worker with several threads reads one batch at a time (threads still serve the shuffles).
_READ_LOCK = threading.Lock()

#: A row of the candidate frame with ``a == COUNT_ROW`` carries, in ``b``, the number of LSH
#: buckets of its partition that were too crowded to pair in full (see :func:`bucket_pairs`).
COUNT_ROW = -1
#: A row with ``a == WINDOWED_ROW`` carries, in ``b``, 1 when its partition's table runs held
#: more pairs than the budget of SimHash alone and were paired with a window instead.
WINDOWED_ROW = -2


def pack_sig(sig: np.ndarray) -> pd.arrays.ArrowExtensionArray:
    """MinHash signatures (rows of uint32) as one Arrow binary column, without copying.

    One column of 4 * num_perm bytes a row instead of num_perm columns: a shuffle moves a few
    buffers per partition rather than splitting and joining 128 columns, several times faster.
    """
    sig = np.ascontiguousarray(sig, dtype=np.uint32)
    n, k = sig.shape
    offsets = np.arange(n + 1, dtype=np.int64) * (4 * k)
    arr = pa.LargeBinaryArray.from_buffers(pa.large_binary(), n,
                                           [None, pa.py_buffer(offsets), pa.py_buffer(sig)])
    return pd.arrays.ArrowExtensionArray(arr)


def unpack_sig(column: pd.Series, k: int) -> np.ndarray:
    """The (rows, k) uint32 signatures held by a column made by :func:`pack_sig`."""
    got = column.array.__arrow_array__()
    arr = got.combine_chunks() if isinstance(got, pa.ChunkedArray) else got
    n = len(arr)
    if not n:
        return np.empty((0, k), dtype=np.uint32)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset:arr.offset + n + 1]
    if not bool((np.diff(offsets) == 4 * k).all()):
        raise ValueError(f"signature column does not hold {k} slots in every row")
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    return data.view(np.uint32).reshape(n, k)


SIG_META = pack_sig(np.empty((0, 1), np.uint32))


# -- reading -------------------------------------------------------------------------------------
def probe() -> tuple[str, int]:
    """(neardup version, fingerprint version) of the process running it: a worker whose
    answer differs from the client's would make different fingerprints."""
    from neardup_core import __version__
    from neardup_core.models import FINGERPRINT_VERSION

    return __version__, FINGERPRINT_VERSION


@dataclass(frozen=True, eq=False)
class BatchOut:
    """One batch of files read on a worker. Stays there: the client gets only :meth:`meta`."""

    meta: tuple[tuple[str, Problem | DocMeta], ...]  # every file of the batch, batch order
    entries: tuple[FileEntry, ...]   # the files that yielded text (the batch's documents)
    text_hashes: tuple[str, ...]
    simhash: np.ndarray              # uint64 (docs,)
    minhash: np.ndarray              # uint32 (docs, num_perm); (docs, 0) for SimHash alone
    lines: np.ndarray                # uint64: each document's distinct line hashes, in turn
    line_doc: np.ndarray             # int64: the document (0-based in the batch) of each line
    line_count: np.ndarray           # int64: how many times each line is in its document
    chars: np.ndarray                # int64 (docs,): each document's normalised characters
    winnows: tuple[np.ndarray, ...] = ()  # each document's winnowed shingle hashes (excerpts)
    units: tuple[int, ...] = ()      # each document's units (words, CJK characters)

    @property
    def docs(self) -> int:
        return len(self.entries)


def read_batch(entries: Sequence[FileEntry], settings: FingerprintSettings,
               max_bytes: int, encodings: dict[str, str] | None = None) -> BatchOut:
    """Extract and fingerprint a batch of files, exactly as a local scan's worker does
    (``encodings``: the codecs the user chose for some of them)."""
    with _READ_LOCK:
        outcomes = process_batch(list(entries), settings, max_bytes, None, encodings)
    by_path = {o.path: o for o in outcomes}
    k = settings.num_perm if settings.minhash else 0
    meta: list[tuple[str, Problem | DocMeta]] = []
    docs: list[FileEntry] = []
    fps = []
    for e in entries:
        o = by_path[e.path]
        if o.problem is not None:
            meta.append((e.path, o.problem))
            continue
        assert o.extracted is not None and o.fingerprint is not None
        fmt, enc, conf, repl = o.extracted
        fp = o.fingerprint
        meta.append((e.path, (fmt, enc, conf, repl, fp.chars, fp.text_hash, o.skipped)))
        docs.append(e)
        fps.append(fp)
    per_doc = [np.unique(fp.line_hashes, return_counts=True) for fp in fps]
    return BatchOut(
        meta=tuple(meta), entries=tuple(docs), text_hashes=tuple(fp.text_hash for fp in fps),
        simhash=np.fromiter((fp.simhash for fp in fps), dtype=np.uint64, count=len(fps)),
        minhash=(np.stack([fp.minhash for fp in fps]).astype(np.uint32) if fps and k
                 else np.zeros((len(fps), k), dtype=np.uint32)),
        lines=np.concatenate([np.empty(0, np.uint64), *(u for u, _ in per_doc)]
                             ).astype(np.uint64),
        line_doc=np.repeat(np.arange(len(fps), dtype=np.int64), [u.size for u, _ in per_doc]),
        line_count=np.concatenate([np.empty(0, np.int64), *(c for _, c in per_doc)]
                                  ).astype(np.int64),
        chars=np.fromiter((fp.chars for fp in fps), dtype=np.int64, count=len(fps)),
        winnows=tuple(fp.winnow for fp in fps), units=tuple(fp.units for fp in fps),
    )


def excerpt_input(out: BatchOut) -> tuple[WinnowSets, tuple[int, ...]]:
    """What the client looks for excerpts with: each document's winnowed set and unit count."""
    return WinnowSets.of(out.winnows), out.units


def batch_meta(out: BatchOut) -> tuple[tuple[str, Problem | DocMeta], ...]:
    return out.meta


def learn_from(out: BatchOut, boiler: np.ndarray) -> list[tuple[int, int, str]]:
    """This batch's best documents to learn the boilerplate lines' lengths from (see
    :func:`neardup_core.fingerprint.boilerplate.candidates`; the client merges every batch's)."""
    return bp.candidates(out.lines, out.line_doc, boiler, out.chars,
                         [e.path for e in out.entries])


def _dropped(out: BatchOut, boiler: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    return bp.dropped_chars(out.lines, out.line_doc, out.docs, boiler, lengths, out.line_count)


def affected(out: BatchOut, boiler: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Documents of the batch (0-based) that leave boilerplate lines out: those holding
    some, unless they are a sliver of the text
    (:func:`neardup_core.fingerprint.boilerplate.to_reread`)."""
    return np.flatnonzero(bp.to_reread(_dropped(out, boiler, lengths), out.chars))


def affected_count(out: BatchOut, boiler: np.ndarray, lengths: np.ndarray) -> tuple[int, int]:
    """(documents that leave boilerplate out, documents that hold some but keep it)."""
    dropped = _dropped(out, boiler, lengths)
    changed = int(np.count_nonzero(bp.to_reread(dropped, out.chars)))
    return changed, int(np.count_nonzero(dropped)) - changed


def reread(out: BatchOut, boiler: np.ndarray, lengths: np.ndarray,
           settings: FingerprintSettings, max_bytes: int,
           encodings: dict[str, str] | None = None) -> BatchOut:
    """The batch with boilerplate lines left out of its affected documents' fingerprints.

    As in the local scan, a document whose text changed since it was first read (or that can
    no longer be read) keeps its first fingerprint.
    """
    docs = affected(out, boiler, lengths).tolist()
    if not docs:
        return out
    with _READ_LOCK:
        outcomes = process_batch([out.entries[i] for i in docs], settings, max_bytes, boiler,
                                 encodings)
    by_path = {o.path: o for o in outcomes}
    simhash = out.simhash.copy()
    minhash = out.minhash.copy()
    winnows, units = list(out.winnows), list(out.units)
    for i in docs:
        o = by_path.get(out.entries[i].path)
        if o is not None and o.fingerprint is not None \
                and o.fingerprint.text_hash == out.text_hashes[i]:
            simhash[i] = o.fingerprint.simhash
            if minhash.shape[1]:
                minhash[i] = o.fingerprint.minhash
            if winnows:
                winnows[i], units[i] = o.fingerprint.winnow, o.fingerprint.units
    return dataclasses.replace(out, simhash=simhash, minhash=minhash, winnows=tuple(winnows),
                               units=tuple(units))


# -- frames built from batches -------------------------------------------------------------------
def fps_meta(k: int) -> pd.DataFrame:
    """The empty fingerprint frame: index ``id`` (document number), rep, hub (the document's
    reference rank: crowded buckets are linked around their lowest), simhash and, with MinHash,
    sig (the signature, see :func:`pack_sig`)."""
    cols = {"rep": np.empty(0, bool), "hub": np.empty(0, np.int64),
            "simhash": np.empty(0, np.uint64)}
    if k:
        cols["sig"] = SIG_META
    return pd.DataFrame(cols, index=pd.Index(np.empty(0, np.int64), name="id"))


def fps_frame(start: int, rep: np.ndarray, hub: np.ndarray, *outs: BatchOut) -> pd.DataFrame:
    """Fingerprints of consecutive batches as one partition; documents numbered from ``start``.

    ``rep`` is the whole scan's mask of documents that are the first of their exact text,
    ``hub`` its reference ranks.
    """
    simhash = np.concatenate([o.simhash for o in outs])
    minhash = np.concatenate([o.minhash for o in outs])
    ids = np.arange(start, start + simhash.shape[0], dtype=np.int64)
    cols = {"rep": rep[ids], "hub": np.asarray(hub, dtype=np.int64)[ids], "simhash": simhash}
    if minhash.shape[1]:
        cols["sig"] = pack_sig(minhash)
    return pd.DataFrame(cols, index=pd.Index(ids, name="id"))


LINES_META = pd.DataFrame({"line": np.empty(0, np.uint64), "doc": np.empty(0, np.int64)})


def lines_frame(start: int, *outs: BatchOut) -> pd.DataFrame:
    """(line hash, document) once per distinct line of each document of the batches."""
    offsets = np.cumsum([start] + [o.docs for o in outs])[:-1]
    return pd.DataFrame({
        "line": np.concatenate([np.empty(0, np.uint64), *(o.lines for o in outs)]),
        "doc": np.concatenate([np.empty(0, np.int64),
                               *(o.line_doc + off for o, off in zip(outs, offsets, strict=True))]),
    })


def select_rows(part: pd.DataFrame, ids: np.ndarray) -> pd.DataFrame:
    """The rows of a fingerprint partition whose document is in ``ids`` (sorted)."""
    return part[np.isin(part.index.to_numpy(), ids, assume_unique=True)]


# -- candidate pairs -----------------------------------------------------------------------------
@dataclass(frozen=True)
class PairPlan:
    """How one pass looks for pairs: permuted SimHash tables, MinHash bands, and the floor.

    Kinds ``0..len(tables)-1`` are the tables (Manku et al.'s permuted prefixes), the following
    ``bands`` kinds the LSH bands. Every kind turns a fingerprint into one 64-bit key; documents
    with equal (kind, key) are one bucket, and only buckets are compared.
    """

    k: int                                # Hamming radius of the tables
    starts: tuple[int, ...]               # lowest bit of each block (hamming_index layout)
    widths: tuple[int, ...]
    tables: tuple[tuple[int, ...], ...]   # the blocks leading in each table
    bands: int
    rows: int
    idx_bits: int                         # low band-hash bits lsh.candidate_pairs ignores
    max_bucket: int
    window: int
    minhash: bool                         # score is the MinHash estimate (else from SimHash)
    num_perm: int                         # MinHash slots per document (0 for SimHash alone)
    floor: float
    table_window: int | None = None   # HammingIndex.all_pairs' window (None: every pair)
    #: SimHash alone (table_window None): a partition whose table runs hold more pairs than
    #: ``pairs_per_doc`` for each of its rows (and at least ``pairs_min``) is paired with
    #: ``window_past_budget`` and the ranks as hubs instead, as the local scan does past its
    #: budget. 0: every pair, whatever their number.
    pairs_per_doc: int = 0
    pairs_min: int = 0
    window_past_budget: int = 0

    @property
    def kinds(self) -> int:
        return len(self.tables) + self.bands


KEYED_META = pd.DataFrame({"kind": np.empty(0, np.int32), "key": np.empty(0, np.uint64),
                           "id": np.empty(0, np.int64), "fp": np.empty(0, np.uint64),
                           "hub": np.empty(0, np.int64)})
CAND_META = pd.DataFrame({"a": np.empty(0, np.int64), "b": np.empty(0, np.int64),
                          "dist": np.empty(0, np.uint8)})
PAIRS_META = pd.DataFrame({"a": np.empty(0, np.int64), "b": np.empty(0, np.int64),
                           "dist": np.empty(0, np.uint8), "jac": np.empty(0, np.float32),
                           "score": np.empty(0, np.float32)})


def table_key(fp: np.ndarray, plan: PairPlan, table: int) -> np.ndarray:
    """The permuted prefix of each fingerprint in one table: its leading blocks, in order."""
    key = np.zeros(fp.shape[0], dtype=np.uint64)
    for blk in plan.tables[table]:
        w = plan.widths[blk]
        part = (fp >> np.uint64(plan.starts[blk])) & np.uint64((1 << w) - 1)
        key = (key << np.uint64(w)) | part  # prefixes are narrower than 64 bits
    return key


def keyed_rows(part: pd.DataFrame, plan: PairPlan, kinds: Sequence[int]) -> pd.DataFrame:
    """One row (kind, key, id, simhash, hub) per document and kind: what the shuffle groups by."""
    fp = part["simhash"].to_numpy(dtype=np.uint64)
    hub = part["hub"].to_numpy(dtype=np.int64)
    ids = part.index.to_numpy(dtype=np.int64)
    sig = unpack_sig(part["sig"], plan.num_perm) \
        if any(kd >= len(plan.tables) for kd in kinds) else None
    keys = []
    for kd in kinds:
        if kd < len(plan.tables):
            keys.append(table_key(fp, plan, kd))
        else:
            assert sig is not None
            h = band_hashes(sig, kd - len(plan.tables), plan.rows)
            keys.append(h >> np.uint64(plan.idx_bits))
    n = ids.shape[0]
    return pd.DataFrame({
        "kind": np.repeat(np.asarray(kinds, dtype=np.int32), n),
        "key": np.concatenate([np.empty(0, np.uint64), *keys]),
        "id": np.tile(ids, len(kinds)), "fp": np.tile(fp, len(kinds)),
        "hub": np.tile(hub, len(kinds))})


def bucket_pairs(part: pd.DataFrame, plan: PairPlan) -> pd.DataFrame:
    """Candidate pairs inside the buckets of one shuffled partition (every bucket is whole).

    Table buckets give the pairs within ``plan.k`` bits (the paper's popcount test, via the
    index's own run comparison, with ``plan.table_window`` as its window and the ranks as its
    hubs; a run's rows in fingerprint order, as the index keeps them, so that a window keeps
    the nearest values; SimHash alone past its budget: see :func:`_table_pairs`). Band buckets
    give all their pairs, or for a bucket of more than ``max_bucket`` documents a chain in
    SimHash order (each one with the next ``window``) and a star around its best-ranked member
    (lsh.py's rules). Pairs are (a, b, SimHash distance) with a < b, repeats allowed; one extra
    row (a = COUNT_ROW) holds the number of such crowded buckets, another (a = WINDOWED_ROW)
    whether the tables went past SimHash alone's budget.
    """
    kind = part["kind"].to_numpy()
    key = part["key"].to_numpy(dtype=np.uint64)
    ids = part["id"].to_numpy(dtype=np.int64)
    fp = part["fp"].to_numpy(dtype=np.uint64)
    hub = part["hub"].to_numpy(dtype=np.int64)
    order = np.lexsort((ids, fp, key, kind))
    kind, key, ids, fp, hub = kind[order], key[order], ids[order], fp[order], hub[order]
    n = ids.shape[0]
    new = np.ones(n, dtype=bool)
    new[1:] = (kind[1:] != kind[:-1]) | (key[1:] != key[:-1])
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, n))
    is_table = kind[starts] < len(plan.tables)
    pa: list[np.ndarray] = []
    pb: list[np.ndarray] = []
    # tables: runs come first (kinds sorted); positions stand in for rows
    t_end = int(starts[~is_table][0]) if (~is_table).any() else n
    windowed = 0
    if t_end:
        offs = np.append(starts[is_table], t_end)
        a, b, windowed = _table_pairs(fp[:t_end], hub[:t_end], offs, plan)
        pa.append(a)
        pb.append(b)
    truncated = 0
    if t_end < n:
        b_counts = counts[~is_table]
        members = np.arange(t_end, n, dtype=np.int64)
        crowded = b_counts > plan.max_bucket
        truncated = int(crowded.sum())
        for runs, window in ((crowded, plan.window), (~crowded & (b_counts > 1), None)):
            if not runs.any():
                continue
            c = b_counts[runs]
            sub = members[np.repeat(runs, b_counts)]  # these runs' members, runs kept together
            if window is None:
                a, b = pairs_in_runs(np.cumsum(c) - c, c, sub, window)
            else:  # crowded: a chain in SimHash order, and a star around the best-ranked
                a, b = crowded_run_pairs(sub, c, window, hub, fp)
            pa.append(a)
            pb.append(b)
    a = np.concatenate([np.empty(0, np.int64), *pa])
    b = np.concatenate([np.empty(0, np.int64), *pb])
    dist = np.bitwise_count(fp[a] ^ fp[b]).astype(np.uint8)
    ia, ib = ids[a], ids[b]
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    return pd.DataFrame({"a": np.append(lo, [COUNT_ROW, WINDOWED_ROW]),
                         "b": np.append(hi, [truncated, windowed]),
                         "dist": np.append(dist, np.zeros(2, np.uint8)).astype(np.uint8)})


def _table_pairs(fp: np.ndarray, hub: np.ndarray, offs: np.ndarray, plan: PairPlan
                 ) -> tuple[np.ndarray, np.ndarray, int]:
    """Pairs (as positions) within ``plan.k`` in the table runs ``offs`` of one partition, and
    1 if they were too many for every pair (SimHash alone, past the plan's budget), else 0.

    Near-copies of one template share their keys in every table, so their pairs grow with the
    square of their number: 8,000 versions of one letter made 32 million pairs and 6.4 GB on
    two workers. The search stops as soon as the budget is passed, before they are allocated.
    """
    rows = np.arange(fp.shape[0], dtype=np.int64)
    window = plan.table_window
    if window is not None or not plan.pairs_per_doc:
        a, b = run_pairs(fp, rows, offs, plan.k, window, hub if window is not None else None)
        return a, b, 0
    # A pair found in several tables counts once in each, as a document has a row in each:
    # per row, the local scan's budget per document.
    budget = max(plan.pairs_min, plan.pairs_per_doc * fp.shape[0])
    try:
        a, b = run_pairs(fp, rows, offs, plan.k, limit=budget)
        return a, b, 0
    except PairLimitExceeded:
        a, b = run_pairs(fp, rows, offs, plan.k, plan.window_past_budget, hub)
        return a, b, 1


def _dedupe(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Positions of the first of each repeated (a, b)."""
    order = np.lexsort((b, a))
    sa, sb = a[order], b[order]
    first = np.ones(order.shape[0], dtype=bool)
    first[1:] = (sa[1:] != sa[:-1]) | (sb[1:] != sb[:-1])
    return order[first]


def _rows(part: pd.DataFrame, ids: np.ndarray) -> np.ndarray:
    """Positions in a fingerprint partition (sorted by id) of the documents ``ids``."""
    return np.searchsorted(part.index.to_numpy(dtype=np.int64), ids)


def _scored(a: np.ndarray, b: np.ndarray, dist: np.ndarray, jac: np.ndarray,
            score: np.ndarray, floor: float) -> pd.DataFrame:
    keep = score >= np.float32(floor)
    return pd.DataFrame({"a": a[keep], "b": b[keep], "dist": dist[keep], "jac": jac[keep],
                         "score": score[keep]})


def join_left(by_a: pd.DataFrame, fps: pd.DataFrame, plan: PairPlan) -> pd.DataFrame:
    """Candidates whose ``a`` lies in this fingerprint partition: repeats dropped (every copy
    of a pair came here), then either scored from SimHash or given a's MinHash slots."""
    a = by_a.index.to_numpy(dtype=np.int64)
    b = by_a["b"].to_numpy(dtype=np.int64)
    dist = by_a["dist"].to_numpy(dtype=np.uint8)
    keep = _dedupe(a, b)
    a, b, dist = a[keep], b[keep], dist[keep]
    if not plan.minhash:
        jac = np.full(a.shape[0], np.nan, dtype=np.float32)
        return _scored(a, b, dist, jac, simhash_similarity(dist), plan.floor)
    sig = unpack_sig(fps["sig"], plan.num_perm)[_rows(fps, a)]
    return pd.DataFrame({"a": a, "b": b, "dist": dist, "sig": pack_sig(sig)})


def join_right(by_b: pd.DataFrame, fps: pd.DataFrame, plan: PairPlan) -> pd.DataFrame:
    """Candidates whose ``b`` lies in this partition, carrying a's slots: scored with the
    local scan's own function, and cut at the floor."""
    b = by_b.index.to_numpy(dtype=np.int64)
    m = b.shape[0]
    both = np.concatenate([unpack_sig(by_b["sig"], plan.num_perm),
                           unpack_sig(fps["sig"], plan.num_perm)[_rows(fps, b)]])
    jac = minhash_agreement(both, np.arange(m), np.arange(m, 2 * m))
    return _scored(by_b["a"].to_numpy(dtype=np.int64), b, by_b["dist"].to_numpy(dtype=np.uint8),
                   jac, jac.copy(), plan.floor)


def strong_edges(pairs: pd.DataFrame, at_least: float) -> pd.DataFrame:
    """The pairs scoring at least ``at_least`` as plain edges (a, b)."""
    s = pairs["score"].to_numpy(dtype=np.float32)
    keep = s >= at_least  # float32 against a Python float, as the local scan compares
    return pd.DataFrame({"a": pairs["a"].to_numpy(dtype=np.int64)[keep],
                         "b": pairs["b"].to_numpy(dtype=np.int64)[keep]})


# -- connected components ------------------------------------------------------------------------
EDGES_META = pd.DataFrame({"a": np.empty(0, np.int64), "b": np.empty(0, np.int64)})


def forest(*parts: pd.DataFrame) -> pd.DataFrame:
    """Union-find over some edge lists: each node once, ``b`` the smallest node of its component.

    The output is itself an edge list (a star per component) with one row per node, so forests
    of different partitions merge by calling this again on them: a tree of merges ends with one
    row per paired document, never with every pair.
    """
    a = np.concatenate([np.empty(0, np.int64), *(p["a"].to_numpy(np.int64) for p in parts)])
    b = np.concatenate([np.empty(0, np.int64), *(p["b"].to_numpy(np.int64) for p in parts)])
    nodes = np.unique(np.concatenate([a, b]))
    m = nodes.shape[0]
    if not m:
        return EDGES_META.copy()
    graph = coo_matrix((np.ones(a.shape[0], np.int8),
                        (np.searchsorted(nodes, a), np.searchsorted(nodes, b))), shape=(m, m))
    ncomp, label = connected_components(graph, directed=False)
    root = np.full(ncomp, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(root, label, nodes)
    return pd.DataFrame({"a": nodes, "b": root[label]})


def forest_summary(labels: pd.DataFrame) -> tuple[int, int]:
    """(nodes, components) of a final forest."""
    return int(labels.shape[0]), int(np.unique(labels["b"].to_numpy()).shape[0])


# -- boilerplate ---------------------------------------------------------------------------------
def cluster_lines(lines: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """(line, cluster) once each: a document's cluster is its component's smallest document
    (itself when it has no strong pair), so near-copies vote once for the lines they share."""
    doc = lines["doc"].to_numpy(dtype=np.int64)
    nodes = labels["a"].to_numpy(dtype=np.int64)
    cluster = doc.copy()
    if nodes.size:
        pos = np.minimum(np.searchsorted(nodes, doc), nodes.size - 1)
        hit = nodes[pos] == doc
        cluster[hit] = labels["b"].to_numpy(dtype=np.int64)[pos[hit]]
    out = pd.DataFrame({"line": lines["line"].to_numpy(dtype=np.uint64), "cluster": cluster})
    return out.drop_duplicates(ignore_index=True)


CLUSTER_LINES_META = pd.DataFrame({"line": np.empty(0, np.uint64),
                                   "cluster": np.empty(0, np.int64)})
BOILER_META = pd.DataFrame({"line": np.empty(0, np.uint64)})


def vote(part: pd.DataFrame, need: int) -> pd.DataFrame:
    """Lines of this partition (each line whole here) found in at least ``need`` clusters."""
    uniq = part.drop_duplicates()
    counts = uniq["line"].value_counts()
    return pd.DataFrame({"line": counts.index.to_numpy(dtype=np.uint64)[
        counts.to_numpy() >= need]})
