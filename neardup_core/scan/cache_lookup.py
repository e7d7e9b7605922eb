"""The cache stage of a local scan: the fingerprint cache opened (and the kept whole result
looked up) while the walk runs, the files the walk finds looked up in it chunk by chunk, and
the conversions between the cache's rows and the workers' outcomes.

A file the cache knows by path, size and modification time, or by its bytes (renamed, moved and
copied files), is not read again; a broken cache costs only speed: the scan goes on without it
and says so in a note.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from neardup_core.errors import CacheError
from neardup_core.extract import FileEntry, content_hash
from neardup_core.models import WORKER_ONLY_ENDINGS, Problem, ProblemKind
from neardup_core.scan.stages import RunStages
from neardup_core.store.folder_state import snapshot_key
from neardup_core.store.snapshot import Snapshot, unpack

if TYPE_CHECKING:  # a rescan the kept result answers reads nothing: no worker, no fingerprinter
    from neardup_core.scan.pool import WorkerPool
    from neardup_core.scan.worker import Outcome

    # and a scan without the cache never opens it: no SQLite
    from neardup_core.store.cache import CacheEntry, FingerprintCache

_WORKER_ONLY_TAIL = max(map(len, WORKER_ONLY_ENDINGS))

__all__ = ["CacheLookup", "CacheOpening", "any_worker_only", "cache_entry", "outcome_from_cache"]


def any_worker_only(entries: Sequence[FileEntry]) -> bool:
    """Whether one of ``entries`` is a file only a worker may read (a PDF, a Word 97-2003
    file): what ``any(e.path.lower().endswith(WORKER_ONLY_ENDINGS) for e in entries)`` says,
    for less (it looked at every file of a folder without a PDF, lowering whole paths: 32 ms at
    40,000 Chinese paths against 7 ms, 4-5 ms saved on the benchmark folder; issue 22): one
    ``lower`` over the ends of the paths joined. ``lower`` turns each character into one or
    more, so the end of a path in lower case comes from as many of its last characters at
    most (and the context it minds, a final sigma's, never makes a suffix's letter)."""
    tail = -_WORKER_ONLY_TAIL
    joined = "\0".join([e.path[tail:] for e in entries]) + "\0"
    if joined.count("\0") != len(entries):  # a NUL in a path (none comes from a disk)
        return any(e.path.lower().endswith(WORKER_ONLY_ENDINGS) for e in entries)
    folded = joined.lower()
    return any(suffix + "\0" in folded for suffix in WORKER_ONLY_ENDINGS)


class CacheOpening:
    """The cache opened, and the kept result of this scan looked up and unpacked, in a
    background thread while the walk runs.

    A rescan of an unchanged folder is the walk plus these: opening checks every page of the
    database (more as it grows) and the kept result takes a query and an unpacking.
    SQLite and the walk's stat calls both leave the interpreter free, so on two cores the
    thread costs the walk nothing. Its outcome is applied by the scan's own thread
    (:meth:`CacheLookup._take_cache`); the connection moves between the threads, never shared. A
    cache the session was given is the caller's connection: it is looked up in place.
    """

    def __init__(self, path: str | None, cache: FingerprintCache | None,
                 snap_key: str | None) -> None:
        self.cache = cache
        self.open_error: CacheError | None = None
        self.lookup_error: CacheError | None = None
        self.snap_state: str | None = None
        self._snap: Snapshot | None = None
        self._unpack_error: ValueError | None = None
        self._thread: threading.Thread | None = None
        if cache is not None:  # the caller's own connection stays in the caller's thread
            self._run(None, snap_key)
            return
        self._thread = threading.Thread(target=self._run, args=(path, snap_key),
                                        name="neardup-cache", daemon=True)
        self._thread.start()

    def _run(self, path: str | None, snap_key: str | None) -> None:
        from neardup_core.store.cache import FingerprintCache  # in this thread, not the walk's

        if self.cache is None:
            try:
                self.cache = FingerprintCache.open(path)
            except CacheError as exc:
                self.open_error = exc
                return
        if snap_key is None:
            return
        try:
            kept = self.cache.latest_result(snap_key)
        except CacheError as exc:
            self.lookup_error = exc
            return
        if kept is None:
            return
        # unpacked whether or not the walk then finds the folders as they were: by then it is
        # ready, and the answer comes only after the walk anyway
        self.snap_state, blob = kept
        try:
            self._snap = unpack(blob)
        except ValueError as exc:
            self._unpack_error = exc

    def done(self) -> bool:
        return self._thread is None or not self._thread.is_alive()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def snapshot(self) -> Snapshot:
        """The unpacked kept result; ``ValueError`` when its payload was damaged."""
        self.join()
        if self._unpack_error is not None:
            raise self._unpack_error
        assert self._snap is not None
        return self._snap


class CacheLookup(RunStages):
    """The cache stage of :class:`~neardup_core.scan.session.ScanSession`'s run (a mixin: the
    run sets the state below). Uses the reading stage's ``_inprocess`` to decide when to start
    the workers."""

    given_cache: FingerprintCache | None  # the session's own connection, if it was given one
    settings_key: str
    cache: FingerprintCache | None
    workers: WorkerPool
    _own_cache: bool
    _rows: dict[str, CacheEntry]
    _looked: int
    _todo: list[FileEntry]
    _todo_bytes: int
    _todo_worker_only: bool
    _snap_key: str | None
    _snap_state: str | None
    _opening: CacheOpening | None
    _kept: CacheOpening | None

    def _walked(self, entries: list[FileEntry]) -> None:
        """Look the new entries up in the cache, and start the workers as soon as the files
        left to read are enough for them to pay off: they load while the walk goes on."""
        if self._opening is not None:
            if not self._opening.done():
                return  # looked up once the cache is open, with the entries found by then
            self._take_cache()
        if self._snap_state is not None:
            return  # a kept result may answer the whole scan: look files up only if it does not
        new = entries[self._looked:]
        self._looked = len(entries)
        if not new:
            return
        hits: dict[str, CacheEntry] = {}
        # A file read in a codec the user chose is never answered by the cache (its rows hold
        # the detected reading) and never kept there.
        cached = [e for e in new if self.opt.encoding_of(e.path) is None] \
            if self.opt.encodings else new
        if self.cache is not None and cached:
            try:
                hits = self.cache.get_many([(e.path, e.size, e.mtime_ns) for e in cached],
                                           self.settings_key)
                hits.update(self._same_content([e for e in cached if e.path not in hits]))
            except CacheError as exc:
                self._cache_failed(exc)
        self._rows.update(hits)
        todo = [e for e in new if e.path not in hits] if hits else new
        self._todo.extend(todo)
        self._todo_bytes += sum(e.size for e in todo)
        if not self._todo_worker_only:
            self._todo_worker_only = any_worker_only(todo)
        if not self.workers.started and self.workers.unavailable is None and \
                not self._inprocess(len(self._todo), self._todo_bytes):
            self.workers.start()

    def _same_content(self, misses: list[FileEntry]) -> dict[str, CacheEntry]:
        """Renamed, moved and copied files: the cache misses them by path, but knows their
        bytes. Only files of a size the cache holds are hashed (a read, no decoding), so a folder
        that was moved is not read again, and a new folder costs one query."""
        assert self.cache is not None
        if not misses:
            return {}
        known = self.cache.sizes_with_content([e.size for e in misses], self.settings_key)
        found: dict[str, CacheEntry] = {}
        for e in misses:
            if e.size not in known:
                continue
            try:
                chash = content_hash(e.path, self.opt.max_size)
            except OSError:
                continue  # the worker will say what is wrong with it
            if chash not in known[e.size]:
                continue
            row = self.cache.find_by_content(chash, self.settings_key)
            if row is not None and row.problem_kind is None:
                found[e.path] = dataclasses.replace(row, path=e.path, size=e.size,
                                                    mtime_ns=e.mtime_ns, content_hash=chash)
        if found:
            self.stats["cache_same_content"] = self.stats.get("cache_same_content", 0) + len(found)
            self.cache.put_many(found.values())
        return found

    # -- cache ----------------------------------------------------------------------------------
    def _open_cache(self) -> None:
        """Start opening the cache and looking up the kept result (see :class:`CacheOpening`);
        :meth:`_take_cache` applies the outcome."""
        if not self.opt.use_cache:
            return
        self._snap_key = snapshot_key(self.roots, self.opt, self.settings_key)
        self._own_cache = self.given_cache is None
        self._opening = CacheOpening(self.opt.cache_path, self.given_cache, self._snap_key)

    def _join_cache(self) -> CacheOpening | None:
        """Wait for the cache being opened, if it is, and make it this thread's."""
        opening, self._opening = self._opening, None
        if opening is None:
            return None
        opening.join()
        self.cache = opening.cache
        if self.cache is not None and self._own_cache:
            self.cache.hand_over()
        return opening

    def _take_cache(self) -> None:
        """Take over the cache opened during the walk. Its notes go first, where they were
        when the cache was opened before the walk."""
        opening = self._join_cache()
        if opening is None:
            return
        before = len(self.notes)
        if opening.open_error is not None:
            self.notes.append(f"Scanning without the fingerprint cache: {opening.open_error}")
            self._snap_key = None
        elif self._own_cache and getattr(self.cache, "recovered_from", None):
            self.notes.append(f"The fingerprint cache was damaged; it was moved aside to "
                              f"{self.cache.recovered_from} and rebuilt.")
        if opening.lookup_error is not None:
            self._cache_failed(opening.lookup_error)
            self._snap_key = None
        elif opening.snap_state is not None:
            self._snap_state, self._kept = opening.snap_state, opening
        ours = self.notes[before:]
        del self.notes[before:]
        self.notes[0:0] = ours

    def _cache_failed(self, exc: Exception) -> None:
        self.notes.append(f"The fingerprint cache stopped working and was turned off for this "
                          f"scan: {exc}")
        if self._own_cache and self.cache is not None and not self._cache_busy():
            # (a cache still being written is closed once its rows are: Reading._settle_cache)
            with contextlib.suppress(Exception):
                self.cache.close()
        self.cache = None


def outcome_from_cache(c: CacheEntry) -> Outcome:
    """What a worker would have returned for the file of cache row ``c``."""
    from neardup_core.fingerprint.fingerprinter import DocFingerprint
    from neardup_core.scan.worker import Outcome

    if c.problem_kind is not None:
        prob = Problem(c.path, ProblemKind(c.problem_kind), c.problem_message or "")
        return Outcome(c.path, c.size, c.mtime_ns, None, None, c.content_hash, prob)
    fp = DocFingerprint(simhash=c.simhash, minhash=c.minhash, text_hash=c.text_hash,
                        chars=c.chars, units=c.units, line_hashes=c.line_hashes,
                        winnow=c.winnow if c.winnow is not None else np.empty(0, np.uint32))
    return Outcome(c.path, c.size, c.mtime_ns, (c.format, c.encoding, c.confidence, c.replaced),
                    fp, c.content_hash, None, skipped=c.skipped)


@functools.cache
def _entry_type() -> type[CacheEntry]:
    """The cache's row class: imported with the cache (in the thread that opens it), not with
    the scan, whose run may never open one."""
    from neardup_core.store.cache import CacheEntry

    return CacheEntry


def cache_entry(o: Outcome, settings_key: str) -> CacheEntry:
    """The cache row that keeps a worker's outcome ``o`` for fingerprint settings
    ``settings_key``."""
    entry = _entry_type()
    if o.problem is not None:
        return entry(path=o.path, size=o.size, mtime_ns=o.mtime_ns,
                     content_hash=o.content_hash, settings_key=settings_key, format="",
                     encoding=None, confidence=None, replaced=0, chars=0, units=0,
                     text_hash="", simhash=0, minhash=np.empty(0, np.uint32),
                     line_hashes=np.empty(0, np.uint64), problem_kind=str(o.problem.kind),
                     problem_message=o.problem.message)
    assert o.extracted is not None and o.fingerprint is not None
    fmt, enc, conf, repl = o.extracted
    fp = o.fingerprint
    return entry(path=o.path, size=o.size, mtime_ns=o.mtime_ns, content_hash=o.content_hash,
                 settings_key=settings_key, format=fmt, encoding=enc, confidence=conf,
                 replaced=repl, chars=fp.chars, units=fp.units, text_hash=fp.text_hash,
                 simhash=fp.simhash, minhash=fp.minhash, line_hashes=fp.line_hashes,
                 problem_kind=None, problem_message=None, skipped=o.skipped,
                 winnow=fp.winnow)
