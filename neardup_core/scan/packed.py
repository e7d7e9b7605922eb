"""What a worker sends back for a batch of files, in columns, and the scan's tables built from
them in the scan's own process.

One pickled :class:`~neardup_core.scan.worker.Outcome` per file (with its fingerprint, three
arrays and a dozen small objects) cost the scan's process about 30 microseconds a file to
unpickle: 1.2 s of a 40,000-file scan, on the critical path, since every worker waits on that
one process. A :class:`Packed` batch is a handful of byte strings and short lists of strings,
whatever its size; the scan joins the batches into a :class:`FingerprintTable` and its
documents with array operations, in walk order (issue 22).

Winnowed sets and line hashes travel and stay concatenated, with offsets: the excerpt and
boilerplate stages read them that way and no per-file array is made for them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import attrgetter, is_
from typing import TypeVar

import numpy as np

from neardup_core.extract import FileEntry
from neardup_core.fingerprint.fingerprinter import DocFingerprint, FingerprintSettings
from neardup_core.heap import give_back
from neardup_core.models import Document, Problem, documents_from_columns
from neardup_core.scan.worker import Outcome, Prepared, fingerprint_prepared, process_batch

__all__ = ["Assembled", "Collected", "FingerprintTable", "Packed", "assemble", "fingerprint_packed",
           "pack", "read_packed", "split_at", "walk_positions"]

_I64, _U64, _U32 = np.dtype("<i8"), np.dtype("<u8"), np.dtype("<u4")
_path = attrgetter("path")
T = TypeVar("T")


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@dataclass(slots=True, eq=False)
class Packed:
    """The outcomes of one batch, in its order: ``n`` files, ``m`` of them with a fingerprint
    (the others have a problem). Per file: size, mtime_ns, changed, content_hash, problem; per
    fingerprinted file: the rest, arrays concatenated."""

    size: np.ndarray            # int64 (n,)
    mtime_ns: np.ndarray        # int64 (n,)
    changed: np.ndarray         # bool (n,)
    content_hash: list[str | None]
    problems: list[Problem | None]   # None where the file has a fingerprint
    fmt: list[str]                   # (m,) from here on
    encoding: list[str | None]
    confidence: list[float | None]
    skipped: list[str | None]
    text_hash: list[str]
    replaced: np.ndarray        # int64 (m,)
    chars: np.ndarray           # int64 (m,)
    units: np.ndarray           # int64 (m,)
    simhash: np.ndarray         # uint64 (m,)
    minhash: np.ndarray         # uint32 (m, k)
    line_counts: np.ndarray     # int64 (m,)
    line_hashes: np.ndarray     # uint64, every file's in turn
    winnow_counts: np.ndarray   # int64 (m,)
    winnow: np.ndarray          # uint32, every file's in turn

    def __len__(self) -> int:
        return len(self.problems)

    def __reduce__(self) -> tuple:
        # Arrays as bytes: numpy's own pickling of an array costs several times more.
        return (_unpack, (
            np.ascontiguousarray(self.size, _I64).tobytes(),
            np.ascontiguousarray(self.mtime_ns, _I64).tobytes(),
            np.ascontiguousarray(self.changed, np.bool_).tobytes(),
            self.content_hash, self.problems, self.fmt, self.encoding, self.confidence,
            self.skipped, self.text_hash,
            np.ascontiguousarray(self.replaced, _I64).tobytes(),
            np.ascontiguousarray(self.chars, _I64).tobytes(),
            np.ascontiguousarray(self.units, _I64).tobytes(),
            np.ascontiguousarray(self.simhash, _U64).tobytes(),
            np.ascontiguousarray(self.minhash, _U32).tobytes(), int(self.minhash.shape[1]),
            np.ascontiguousarray(self.line_counts, _I64).tobytes(),
            np.ascontiguousarray(self.line_hashes, _U64).tobytes(),
            np.ascontiguousarray(self.winnow_counts, _I64).tobytes(),
            np.ascontiguousarray(self.winnow, _U32).tobytes()))

    def outcomes(self, entries: Sequence[FileEntry]) -> list[Outcome]:
        """The per-file outcomes again (``entries``: the batch, in order): for the few paths
        that want them (cache rows, the boilerplate pass's re-read)."""
        out: list[Outcome] = []
        j = 0
        lo = wo = 0
        for i, e in enumerate(entries):
            prob = self.problems[i]
            size, mtime = int(self.size[i]), int(self.mtime_ns[i])
            if prob is not None:
                out.append(Outcome(e.path, size, mtime, None, None, self.content_hash[i], prob,
                                   bool(self.changed[i])))
                continue
            nl, nw = int(self.line_counts[j]), int(self.winnow_counts[j])
            fp = DocFingerprint(int(self.simhash[j]), self.minhash[j], self.text_hash[j],
                                int(self.chars[j]), int(self.units[j]),
                                self.line_hashes[lo:lo + nl], self.winnow[wo:wo + nw])
            lo, wo = lo + nl, wo + nw
            out.append(Outcome(e.path, size, mtime, (self.fmt[j], self.encoding[j],
                                                     self.confidence[j], int(self.replaced[j])),
                               fp, self.content_hash[i], None, bool(self.changed[i]),
                               self.skipped[j]))
            j += 1
        return out


def _unpack(size: bytes, mtime_ns: bytes, changed: bytes, content_hash: list, problems: list,
            fmt: list, encoding: list, confidence: list, skipped: list, text_hash: list,
            replaced: bytes, chars: bytes, units: bytes, simhash: bytes, minhash: bytes, k: int,
            line_counts: bytes, line_hashes: bytes, winnow_counts: bytes, winnow: bytes
            ) -> Packed:
    """Unpickles a :class:`Packed`; arrays over bytes are read-only already."""
    return Packed(np.frombuffer(size, _I64), np.frombuffer(mtime_ns, _I64),
                  np.frombuffer(changed, np.bool_), content_hash, problems, fmt, encoding,
                  confidence, skipped, text_hash, np.frombuffer(replaced, _I64),
                  np.frombuffer(chars, _I64), np.frombuffer(units, _I64),
                  np.frombuffer(simhash, _U64),
                  np.frombuffer(minhash, _U32).reshape(len(text_hash), k),
                  np.frombuffer(line_counts, _I64), np.frombuffer(line_hashes, _U64),
                  np.frombuffer(winnow_counts, _I64), np.frombuffer(winnow, _U32))


def pack(outcomes: Sequence[Outcome]) -> Packed:
    """``outcomes`` (one batch's, in order) in columns: run by the worker that made them."""
    fps = [o.fingerprint for o in outcomes if o.problem is None]
    meta = [o.extracted for o in outcomes if o.problem is None]
    docs = [o for o in outcomes if o.problem is None]
    m = len(fps)
    k = max((fp.minhash.shape[0] for fp in fps), default=0)  # type: ignore[union-attr]
    minhash = np.zeros((m, k), _U32)
    for j, fp in enumerate(fps):
        assert fp is not None
        if fp.minhash.shape[0]:
            minhash[j] = fp.minhash
    lines = [fp.line_hashes for fp in fps]  # type: ignore[union-attr]
    winnows = [fp.winnow for fp in fps]  # type: ignore[union-attr]
    return Packed(
        size=np.array([o.size for o in outcomes], _I64),
        mtime_ns=np.array([o.mtime_ns for o in outcomes], _I64),
        changed=np.array([o.changed for o in outcomes], np.bool_),
        content_hash=[o.content_hash for o in outcomes],
        problems=[o.problem for o in outcomes],
        fmt=[x[0] for x in meta],  # type: ignore[index]
        encoding=[x[1] for x in meta],  # type: ignore[index]
        confidence=[x[2] for x in meta],  # type: ignore[index]
        skipped=[o.skipped for o in docs],
        text_hash=[fp.text_hash for fp in fps],  # type: ignore[union-attr]
        replaced=np.array([x[3] for x in meta], _I64),  # type: ignore[index]
        chars=np.array([fp.chars for fp in fps], _I64),  # type: ignore[union-attr]
        units=np.array([fp.units for fp in fps], _I64),  # type: ignore[union-attr]
        simhash=np.array([fp.simhash for fp in fps], _U64),  # type: ignore[union-attr]
        minhash=minhash,
        line_counts=np.array([a.shape[0] for a in lines], _I64),
        line_hashes=np.concatenate(lines).astype(_U64, copy=False) if m else
        np.empty(0, _U64),
        winnow_counts=np.array([a.shape[0] for a in winnows], _I64),
        winnow=np.concatenate(winnows).astype(_U32, copy=False) if m else np.empty(0, _U32))


def split_at(items: Sequence[T], counts: Sequence[int] | None) -> list[Sequence[T]]:
    """``items`` cut into runs of ``counts[0]``, ``counts[1]``, ... items (None: one run)."""
    if counts is None:
        return [items]
    out: list[Sequence[T]] = []
    at = 0
    for c in counts:
        out.append(items[at:at + c])
        at += c
    if at != len(items):
        raise ValueError(f"runs of {sum(counts)} items for {len(items)}")
    return out


def read_packed(batch: list[FileEntry], settings: FingerprintSettings, max_bytes: int,
                drop_lines: np.ndarray | None = None,
                encodings: dict[str, str] | None = None,
                counts: Sequence[int] | None = None) -> Packed:
    """:func:`~neardup_core.scan.worker.process_batch`, packed: the task a worker runs.

    ``counts``: the task holds several of the reading's batches, one after the other, this
    many files each; each is read and fingerprinted as it would be alone (the same passes
    over the same texts), and they come back as one: a round trip costs the scan's process
    about as much as a batch's files do (see BATCH_FILES in :mod:`neardup_core.scan.
    reading`)."""
    return pack([o for part in split_at(batch, counts)
                 for o in process_batch(list(part), settings, max_bytes, drop_lines,
                                        encodings)])


def fingerprint_packed(items: list[Outcome | Prepared], settings: FingerprintSettings,
                       max_bytes: int, drop_lines: np.ndarray | None = None,
                       counts: Sequence[int] | None = None) -> Packed:
    """:func:`~neardup_core.scan.worker.fingerprint_prepared`, packed (texts read ahead in the
    scan's process, fingerprinted in a worker); ``counts`` as for :func:`read_packed`."""
    return pack([o for part in split_at(items, counts)
                 for o in fingerprint_prepared(list(part), settings, max_bytes, drop_lines)])


@dataclass(slots=True, eq=False)
class FingerprintTable:
    """Every document's fingerprint, in columns (row ``i`` is document ``i``)."""

    simhash: np.ndarray        # uint64 (n,)
    minhash: np.ndarray        # uint32 (n, k)
    text_hash: list[str]
    chars: np.ndarray          # int64 (n,)
    units: np.ndarray          # int64 (n,)
    line_hashes: np.ndarray    # uint64, concatenated; document i's: line_offsets[i:i + 2]
    line_offsets: np.ndarray   # int64 (n + 1,)
    winnow: np.ndarray         # uint32, concatenated, likewise
    winnow_offsets: np.ndarray  # int64 (n + 1,)

    def __len__(self) -> int:
        return len(self.text_hash)

    @property
    def line_counts(self) -> np.ndarray:
        return np.diff(self.line_offsets)

    def winnows(self) -> list[np.ndarray]:
        """Each document's winnowed set (read-only views of the one array)."""
        return np.split(self.winnow, self.winnow_offsets[1:-1])

    def with_rows(self, rows: Sequence[int], simhash: Sequence[int],
                  minhash: Sequence[np.ndarray]) -> FingerprintTable:
        """A table whose ``rows`` have these SimHashes and MinHashes (the rest shared)."""
        simh = self.simhash.copy()
        minh = self.minhash.copy()
        for i, s, mh in zip(rows, simhash, minhash, strict=True):
            simh[i] = s
            if minh.shape[1]:
                minh[i] = mh
        return FingerprintTable(simh, minh, self.text_hash, self.chars, self.units,
                                self.line_hashes, self.line_offsets, self.winnow,
                                self.winnow_offsets)

    def without_lines(self) -> FingerprintTable:
        """This table without its line hashes (no document has a line): for the stages after
        the boilerplate pass, the only one that reads them."""
        return FingerprintTable(self.simhash, self.minhash, self.text_hash, self.chars,
                                self.units, np.empty(0, np.uint64),
                                np.zeros(len(self) + 1, np.int64), self.winnow,
                                self.winnow_offsets)

    @classmethod
    def empty(cls, k: int) -> FingerprintTable:
        z = np.zeros(1, np.int64)
        return cls(np.empty(0, np.uint64), np.zeros((0, k), np.uint32), [],
                   np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.uint64), z,
                   np.empty(0, np.uint32), z)


@dataclass(slots=True, eq=False)
class Assembled:
    """The documents and problems of the read files, in walk order."""

    documents: list[Document]
    fingerprints: FingerprintTable
    problems: list[Problem]
    changed: bool          # some file changed while it was read


@dataclass(slots=True, eq=False)
class _Pieces:
    """Where each run of output rows comes from: rows ``out[i]:out[i + 1]`` are part
    ``part[i]``'s fingerprinted rows from ``local[i]`` on. Batches are runs of consecutive
    files, so a few hundred pieces cover 40,000 rows, and each column is copied a slice per
    piece straight from the parts: one copy, not a concatenation and then a gather (the
    MinHash column alone is 20 MB at 40,000 files; issue 22)."""

    out: list[int]     # (pieces + 1,) output row where each piece starts, then the total
    part: list[int]
    local: list[int]
    starts: np.ndarray  # (parts + 1,) where each part's rows would start, joined

    @classmethod
    def of(cls, d: np.ndarray, part_rows: np.ndarray) -> _Pieces:
        """``d``: the output rows' rows among the parts' fingerprinted rows concatenated;
        ``part_rows``: how many each part has."""
        starts = np.zeros(part_rows.shape[0] + 1, np.int64)
        np.cumsum(part_rows, out=starts[1:])
        if d.shape[0] == 0:
            return cls([0], [], [], starts)
        cut = np.ones(d.shape[0], bool)
        np.not_equal(d[1:], d[:-1] + 1, out=cut[1:])
        at_start = np.zeros(int(starts[-1]) + 1, bool)
        at_start[starts[:-1]] = True
        cut |= at_start[d]  # a piece never runs on into the next part
        first = np.flatnonzero(cut)
        src = d[first]
        part = np.searchsorted(starts, src, side="right") - 1
        return cls([*first.tolist(), d.shape[0]], part.tolist(), (src - starts[part]).tolist(),
                   starts)

    def __iter__(self) -> Iterator[tuple[int, int, int, int]]:
        """(output start, output end, part, its first row) of each piece."""
        return zip(self.out[:-1], self.out[1:], self.part, self.local, strict=True)

    def rows(self, columns: Sequence[np.ndarray], out: np.ndarray) -> np.ndarray:
        """``out`` (as many rows as the pieces cover) filled from ``columns``, one per part."""
        for lo, hi, p, at in self:
            out[lo:hi] = columns[p][at:at + hi - lo]
        return out

    def items(self, columns: Sequence[Sequence]) -> list:
        out: list = []
        for lo, hi, p, at in self:
            out += columns[p][at:at + hi - lo]
        return out

    def segments(self, values: Sequence[np.ndarray], counts: Sequence[np.ndarray],
                 dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        """Concatenated segments (``counts[p][r]`` values for row ``r`` of part ``p``, in turn
        in ``values[p]``) of the output rows: the values and their offsets."""
        every = np.concatenate(counts) if counts else np.empty(0, np.int64)
        begin = np.zeros(every.shape[0] + 1, np.int64)  # as if the parts' values were joined
        np.cumsum(every, out=begin[1:])
        base = begin[self.starts[:-1]].tolist()        # where each part's values would begin
        offsets = np.zeros(self.out[-1] + 1, np.int64)
        if self.out[-1]:
            np.cumsum(self.rows(counts, np.empty(self.out[-1], np.int64)), out=offsets[1:])
        out = np.empty(int(offsets[-1]), dtype)
        first = self.starts.tolist()
        for lo, hi, p, at in self:
            r = first[p] + at
            a, b = int(begin[r]) - base[p], int(begin[r + hi - lo]) - base[p]
            o = int(offsets[lo])
            out[o:o + b - a] = values[p][a:b]
        return _frozen(out), offsets


def _drop(parts: Sequence[tuple[np.ndarray, Packed]], *names: str) -> None:
    """Empties these columns of the batches: joined, they are held once, not twice (at
    1,000,000 files the MinHash, line hash and winnow columns are about 1 KB a file), and
    their pages go back to the system at once: glibc would keep them, and the next column,
    one block, could not reuse the holes the batches leave."""
    for _, p in parts:
        for name in names:
            a = getattr(p, name)
            setattr(p, name, np.empty((0, *a.shape[1:]), a.dtype))
    give_back()  # their pages, before the next column is joined (see neardup_core.heap)


def assemble(entries: Sequence[FileEntry], parts: Sequence[tuple[np.ndarray, Packed]],
             k: int, *, consume: bool = False) -> Assembled:
    """Documents, fingerprints and problems of ``parts`` (each a batch's walk positions in
    ``entries`` and its :class:`Packed`), in walk order; where a file came back twice, the
    later part's answer counts. ``k``: MinHash permutations (0: none). ``consume``: the
    parts' big columns are emptied once joined (the batches are not read again).

    Batches are runs of consecutive files that come back in any order: put back in the order
    of their first files they are usually in walk order already, or nearly (the files read
    ahead in this process while the workers start are interleaved with the first batches),
    and every column is copied a run of rows at a time (:class:`_Pieces`)."""
    if not parts:
        return Assembled([], FingerprintTable.empty(k), [], False)
    # stable: of two parts that start at the same file, the later stays later
    parts = sorted(parts, key=lambda part: int(part[0][0]) if part[0].shape[0] else -1)
    pos = np.concatenate([p for p, _ in parts]).astype(np.int64, copy=False)
    problems_all: list[Problem | None] = [q for _, p in parts for q in p.problems]
    is_doc = np.fromiter(map(is_, problems_all, repeat(None)), bool, count=len(problems_all))
    changed = np.concatenate([p.changed for _, p in parts])
    n_docs = int(is_doc.sum())
    in_order = bool((pos[1:] > pos[:-1]).all())
    if in_order:
        problems = [q for q in problems_all if q is not None]
        keep = np.flatnonzero(is_doc)   # fingerprinted files, walk order: rows of all files
        answered = is_doc  # whether each file answered has a document, in walk order
        d = np.arange(n_docs, dtype=np.int64)  # ... their rows among the fingerprinted ones
        any_changed = bool(changed.any())
    else:
        # walk order, and the last answer for a position (stable sort on position, then keep
        # the last of each run)
        seq = np.arange(pos.shape[0], dtype=np.int64)
        order = np.lexsort((seq, pos))
        sp = pos[order]
        last = np.ones(sp.shape[0], bool)
        last[:-1] = sp[1:] != sp[:-1]
        rows = order[last]  # rows of the concatenated files, in walk order
        doc_row = np.cumsum(is_doc) - 1  # each file's row among the fingerprinted ones
        answered = is_doc[rows]
        problems = [q for q in map(problems_all.__getitem__, rows[~answered].tolist())
                    if q is not None]
        keep = rows[answered]
        d = doc_row[keep]
        any_changed = bool(changed[rows].any())
    packs = [p for _, p in parts]
    pieces = _Pieces.of(d, np.array([len(p.text_hash) for p in packs], np.int64))
    m = d.shape[0]

    def col(name: str) -> list:
        return pieces.items([getattr(p, name) for p in packs])

    def arr(name: str, dtype: np.dtype) -> np.ndarray:
        return pieces.rows([getattr(p, name) for p in packs], np.empty(m, dtype))

    minhash = np.zeros((m, k), np.uint32)
    if k:
        # a batch without MinHash (cannot happen with one settings) leaves its rows at zero
        pieces.rows([p.minhash if p.minhash.shape[1] == k else np.zeros((len(p.text_hash), k),
                                                                         np.uint32)
                     for p in packs], minhash)
    if consume:
        _drop(parts, "minhash")
    line_hashes, line_offsets = pieces.segments([p.line_hashes for p in packs],
                                                [p.line_counts for p in packs], _U64)
    if consume:
        _drop(parts, "line_hashes")
    winnow, winnow_offsets = pieces.segments([p.winnow for p in packs],
                                             [p.winnow_counts for p in packs], _U32)
    if consume:
        _drop(parts, "winnow")
    text_hash = col("text_hash")
    chars = arr("chars", _I64)
    table = FingerprintTable(arr("simhash", _U64), minhash, text_hash, chars,
                             arr("units", _I64), line_hashes, line_offsets, winnow,
                             winnow_offsets)
    # the documents: the identity is the walk's (a cache hit's row says nothing about which
    # file now holds the path); a file changed while read keeps it too, and if it was replaced
    # outright its new inode no longer matches, so no action will touch it unseen
    sizes = np.concatenate([p.size for p in packs])[keep]
    mtimes = np.concatenate([p.mtime_ns for p in packs])[keep]
    content_all = chain.from_iterable(p.content_hash for p in packs)
    if in_order:  # the kept rows are the fingerprinted files: no index per file
        content = list(compress(content_all, is_doc.tolist()))
    else:
        content = list(map(list(content_all).__getitem__, keep.tolist()))
    if answered.shape[0] == len(entries):
        # every file of the walk answered (a full scan): its entries picked in walk order
        picked = list(compress(entries, answered.tolist()))
    else:
        picked = list(map(entries.__getitem__, pos[keep].tolist()))
    docs = list(documents_from_columns(
        [e.path for e in picked], sizes.tolist(), (mtimes / 1e9).tolist(), col("fmt"),
        col("encoding"), col("confidence"), arr("replaced", _I64).tolist(), chars.tolist(),
        text_hash, mtimes.tolist(), [e.dev for e in picked], [e.ino for e in picked],
        content, col("skipped")))
    return Assembled(docs, table, problems, any_changed)


class Collected:
    """What a run of batches has brought back so far: packed batches from the workers, and
    outcomes made in this process (cache hits, files lost with a worker, files read here),
    packed together when the documents are assembled."""

    def __init__(self) -> None:
        self.parts: list[tuple[Sequence[FileEntry], Packed]] = []
        self.single: list[tuple[FileEntry, Outcome]] = []
        self.files = 0

    def __len__(self) -> int:
        return self.files

    def add(self, batch: Sequence[FileEntry], packed: Packed) -> None:
        """A worker's answer for ``batch`` (in its order)."""
        assert len(packed) == len(batch)
        self.parts.append((batch, packed))
        self.files += len(batch)

    def put(self, entry: FileEntry, outcome: Outcome) -> None:
        self.single.append((entry, outcome))
        self.files += 1

    def put_all(self, batch: Sequence[FileEntry], outcomes: Sequence[Outcome]) -> None:
        """Outcomes in the order of ``batch`` (what :func:`~neardup_core.scan.worker.
        process_batch` returns)."""
        assert len(outcomes) == len(batch)
        self.single.extend(zip(batch, outcomes, strict=True))
        self.files += len(batch)

    def extend(self, other: Collected) -> None:
        self.parts.extend(other.parts)
        self.single.extend(other.single)
        self.files += other.files

    def outcomes(self) -> list[Outcome]:
        """Every outcome as one object per file (the parts' first, then the single ones; a
        file that came back twice appears twice, the later one last)."""
        out = [o for batch, p in self.parts for o in p.outcomes(batch)]
        out.extend(o for _, o in self.single)
        return out

    def all_packed(self) -> list[tuple[Sequence[FileEntry], Packed]]:
        """Every answer in columns, in :meth:`outcomes`' order (the single outcomes packed, at
        the end): for the cache's rows, made with no object per file (issue 22)."""
        out = list(self.parts)
        if self.single:
            out.append(([e for e, _ in self.single], pack([o for _, o in self.single])))
        return out

    def by_path(self) -> dict[str, Outcome]:
        return {o.path: o for o in self.outcomes()}

    def assemble(self, entries: Sequence[FileEntry], k: int) -> Assembled:
        """See :func:`assemble`; ``entries``: the walk's, in its order. Takes the batches:
        this collection is empty afterwards, and what the documents do not keep of them is
        freed as they are joined."""
        batches = [batch for batch, _ in self.parts]
        packs = [p for _, p in self.parts]
        if self.single:
            batches.append([e for e, _ in self.single])
            packs.append(pack([o for _, o in self.single]))
        self.parts, self.single, self.files = [], [], 0  # what is left of them goes with parts
        where = walk_positions(entries, batches)
        return assemble(entries, list(zip(where, packs, strict=True)), k, consume=True)


def walk_positions(entries: Sequence[FileEntry], batches: Sequence[Sequence[FileEntry]]
                   ) -> list[np.ndarray]:
    """Where each file of each batch is in the walk ``entries`` (by path).

    The batches hold the walk's own entries, and most are runs of it: a batch's first entry
    is found by identity (its id among the walk's, one numpy search for all batches), and the
    batch is a run if the walk's entries from there are the batch's, compared as lists (by
    identity first). A dictionary from the walk's 40,000 paths, whose hashes were never
    computed, and every batch's paths looked up in it cost the scan's process 15 to 30 ms on
    the critical path (issue 22); this, 4-5 ms. The other batches are found file by file,
    by identity too (:func:`_find`)."""
    if not batches:
        return []
    walk = entries if isinstance(entries, list) else list(entries)
    ids = np.fromiter(map(id, walk), np.intp, count=len(walk))
    heads = np.sort(np.array([id(b[0]) for b in batches if len(b)], np.intp))
    start: dict[int, int] = {}
    if heads.shape[0] and ids.shape[0]:
        at = np.minimum(np.searchsorted(heads, ids), heads.shape[0] - 1)
        hit = np.flatnonzero(heads[at] == ids)
        start = dict(zip(heads[at[hit]].tolist(), hit.tolist(), strict=True))
    out: list[np.ndarray | None] = []
    for b in batches:
        s = start.get(id(b[0])) if len(b) else 0
        run = None
        if s is not None and walk[s:s + len(b)] == (b if isinstance(b, list) else list(b)):
            run = np.arange(s, s + len(b), dtype=np.int64)
        out.append(run)
    rest = [b for b, run in zip(batches, out, strict=True) if run is None]
    found = _find(ids, rest)
    by_path: dict[str, int] | None = None
    for b, pos in zip(rest, found, strict=True):
        missed = np.flatnonzero(pos < 0)
        if missed.shape[0]:  # not one of the walk's objects: by path
            if by_path is None:
                by_path = dict(zip(map(_path, walk), range(len(walk)), strict=True))
            pos[missed] = [by_path[b[i].path] for i in missed.tolist()]
    it = iter(found)
    return [next(it) if run is None else run for run in out]


def _find(ids: np.ndarray, batches: Sequence[Sequence[FileEntry]]) -> list[np.ndarray]:
    """Where each file of each batch is among the walk's entries, by identity (``ids``: the
    walk's entries' ids, searched among the batches' in one numpy call); -1 for an entry that
    is not one of the walk's objects."""
    if not batches:
        return []
    sizes = [len(b) for b in batches]
    wanted = np.fromiter(map(id, chain.from_iterable(batches)), np.intp, count=sum(sizes))
    order = np.argsort(wanted, kind="stable")
    ranked = wanted[order]
    found = np.full(ranked.shape[0], -1, np.int64)
    if ranked.shape[0] and ids.shape[0]:
        at = np.minimum(np.searchsorted(ranked, ids), ranked.shape[0] - 1)
        hit = np.flatnonzero(ranked[at] == ids)
        found[at[hit]] = hit
        # a file read twice is wanted twice: the search found the first of its equal ids
        first = np.zeros(ranked.shape[0], bool)
        first[0] = True
        np.not_equal(ranked[1:], ranked[:-1], out=first[1:])
        found = found[np.flatnonzero(first)[np.cumsum(first) - 1]]
    pos = np.empty(ranked.shape[0], np.int64)
    pos[order] = found
    return np.split(pos, np.cumsum(sizes[:-1]))
