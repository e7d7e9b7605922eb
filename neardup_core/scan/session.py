"""ScanSession: folders in, an immutable ScanResult out.

walk -> (cache lookup) -> extract + fingerprint in worker processes -> boilerplate pass ->
exact tier -> candidate pairs (LSH bands and/or the permuted-table Hamming index) -> scores ->
groups. Every stage reports progress and honours the cancel token; one bad file becomes a
Problem, a dead worker process costs only the files it held, and a broken cache costs only
speed. Pairs are scored once down to the loosest threshold the slider allows, so regrouping
needs no rescan.

The session owns no Qt; besides the process pool it only runs short helper threads (starting
the pool, opening the cache and unpacking a kept result while the walk runs, importing the
grouping code) that never touch the result.
The GUI calls :meth:`ScanSession.run` from a worker thread, the CLI from its main thread.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import math
import multiprocessing
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

import numpy as np

from neardup_core.arrays import unique_sorted
from neardup_core.errors import CacheError, ScanCancelled
from neardup_core.extract import FileEntry, WalkStats, check_roots, content_hash, walk
from neardup_core.fingerprint import boilerplate as bp
from neardup_core.fingerprint.fingerprinter import DocFingerprint, FingerprintSettings
from neardup_core.hashing import hash128_hex
from neardup_core.models import (
    DOCX_SUFFIXES,
    Document,
    GroupTable,
    Method,
    PairTable,
    Problem,
    ProblemKind,
    ScanOptions,
)
from neardup_core.pairs.hamming_index import HammingIndex, PairLimitExceeded
from neardup_core.pairs.lsh import candidate_pairs, scan_params
from neardup_core.pairs.scoring import (
    distance_for_similarity,
    hamming,
    minhash_agreement,
    simhash_similarity,
)
from neardup_core.progress import CancelToken, ProgressEvent, ProgressSink, Stage, null_progress
from neardup_core.result import ScanResult
from neardup_core.scan.pool import prestart, start_method
from neardup_core.scan.worker import (
    Outcome,
    Prepared,
    fingerprint_prepared,
    lost,
    prepare_batch,
    process_batch,
    warm_up,
)
from neardup_core.store.cache import CacheEntry, FingerprintCache
from neardup_core.store.snapshot import (
    Snapshot,
    folder_state,
    grouping_code,
    pack,
    snapshot_key,
    unpack,
)

#: Below this many files (or bytes) worker processes cost more to start than they save.
INPROCESS_MAX_FILES = 48
INPROCESS_MAX_BYTES = 4 * 1024 * 1024
#: A batch sent to a worker: small enough that cancel is quick and a crash loses little, large
#: enough that the per-batch costs (a round trip, one fingerprinting pass) stay small: 48 files
#: scanned the 10k benchmark corpus ~8 % faster than 24 (four interleaved pairs, all faster).
BATCH_FILES = 48
BATCH_BYTES = 4 * 1024 * 1024
#: A line is boilerplate when at least this many documents contain it (and the share is met).
BOILERPLATE_MIN_DOCS = 5
#: Documents at least this alike on their full text count as one when looking for boilerplate.
BOILERPLATE_SAME = 0.8
#: Hamming radius the SimHash index adds when MinHash is the scorer (cheap, catches near-copies).
BOTH_SIMHASH_K = 4
#: LSH buckets larger than this are linked as a chain and as a star around their best-ranked
#: member (the file a group would keep) instead of pair by pair (see lsh.py). A folder of
#: thousands of near-copies of one text (letters or invoices from one template) puts most of
#: them in one bucket of every band: all pairs of 3,000 such files took 15 s and 2 GB, and
#: grew with the square of their number. The star keeps the reference linked to every copy,
#: which is what STRICT and large COHESIVE groups are read from. Real folders stay far below
#: it: the largest bucket of the 10,000-file benchmark corpus holds 21 documents, of zh-news 6.
LSH_MAX_BUCKET = 256
#: With MinHash and SimHash together, a fingerprint keeps this many of its matches per table
#: of the SimHash index when many are alike, and the rest are linked around the best-ranked
#: one (HammingIndex.all_pairs' window and hubs), for the same reason. SimHash alone stays
#: exact within a budget of pairs (below): at its radius (up to 12 bits) 463 documents of the
#: benchmark corpus have more than 128 partners (up to 624), and a window changed its pairs
#: there (120,625 -> 115,892 at 128).
HAMMING_WINDOW = 16
#: SimHash alone pairs exactly while the pairs stay within this budget (this many per
#: document, and never less than SIMHASH_PAIRS_MIN): the benchmark corpus has 12 a document,
#: a folder of thousands of versions of one text has as many as it has files. Past it the index
#: stops early and pairs again with the window and the star around each group's reference, as
#: the combined method does; the scan says so in a note. 3,000 copies + 3,000 versions: 6.9 s,
#: 1.3 GB, 4.5 M pairs -> 2.0 s, 0.54 GB, 0.19 M pairs, the same largest groups; 12,000
#: versions (72 M pairs in full) 3.5 s, 0.63 GB.
SIMHASH_PAIRS_PER_DOC = 64
SIMHASH_PAIRS_MIN = 1_000_000
#: Pools that break before returning anything, in a row, before the scan stops trying (workers
#: that cannot even start would otherwise be retried once per file).
DEAD_POOLS_LIMIT = 8
_DOCX = tuple(sorted(DOCX_SUFFIXES))
#: Text (characters) the scan's own process may read ahead while the workers start.
READ_AHEAD_BYTES = 32 * 1024 * 1024
#: Bands whose candidates are gathered, scored and filtered together.
LSH_BANDS_PER_CHUNK = 4


#: Problems that depend on the moment, not the bytes: a run that met one is not kept whole.
_PASSING_PROBLEMS = frozenset({ProblemKind.LOST, ProblemKind.VANISHED, ProblemKind.UNREADABLE})
#: Stats of the pairing stages that a kept result brings back with it.
_SNAPSHOT_STATS = ("floor", "pairs", "exact_copies", "lsh", "simhash_candidates",
                   "boilerplate_lines")

#: Entries the walk hands over at a time for the early cache lookup and the pool decision.
WALK_CHUNK = 256


# -- the worker pool ----------------------------------------------------------------------------
class _Workers:
    """The run's process pool: started once, as soon as the walk shows that workers will pay
    off, and warmed (modules imported, segmenter and IDF loaded) while the walk goes on; reused
    by the boilerplate pass; replaced when a worker dies.

    Workers that cannot start at all (a script without an ``if __name__ == "__main__"`` guard, a
    sandbox that forbids processes) are told apart from files that kill their worker by the
    warm-up tasks, which touch no user file: when those fail, the scan reads in its own process.
    """

    def __init__(self, count: int, method: str, settings: FingerprintSettings) -> None:
        self.count = count
        self.method = method
        self.settings = settings
        self.pool: ProcessPoolExecutor | None = None
        self._warm: list[Future] = []
        self._starting: threading.Thread | None = None
        self.unavailable: str | None = None  # why workers cannot start, once known
        self.pools = 0  # pools started in this run (one, unless workers died)

    @property
    def started(self) -> bool:
        return self.pool is not None or self._starting is not None

    @property
    def warming(self) -> bool:
        """Still starting in the background (the fork server loading its modules)."""
        return self._starting is not None and self._starting.is_alive()

    def start(self) -> None:
        """Start the pool in the background: the first fork waits for the fork server to load,
        which is time the walk can use."""
        if not self.started:
            self._starting = threading.Thread(target=self._start, name="neardup-pool-start",
                                              daemon=True)
            self._starting.start()

    def _start(self) -> None:
        try:
            if self.method == "forkserver":
                prestart()
            ctx = multiprocessing.get_context(self.method)
            pool = ProcessPoolExecutor(max_workers=self.count, mp_context=ctx)
            self.pools += 1
            self._warm = [pool.submit(warm_up, self.settings) for _ in range(self.count)]
            self.pool = pool
        except OSError as exc:  # no processes here (a sandbox, a process limit): read in-process
            # (Not RuntimeError: that is a worker importing an unguarded script, which must fail
            # as Python makes it fail, not scan the folder a second time.)
            self.unavailable = f"{type(exc).__name__}: {exc}"
            self.pool = None

    def _started(self) -> None:
        if self._starting is not None:
            self._starting.join()
            self._starting = None

    def get(self) -> ProcessPoolExecutor | None:
        """The pool, started if need be; None when worker processes cannot be started."""
        self._started()
        if self.pool is None and self.unavailable is None:
            self._start()
        return self.pool

    def failed_to_start(self) -> bool:
        """True when no warm-up task ran: the processes die before they can do anything."""
        if not self._warm or not all(f.done() for f in self._warm):
            return False
        errors = [f.exception() for f in self._warm if not f.cancelled()]
        if errors and all(e is not None for e in errors):
            self.unavailable = f"{type(errors[0]).__name__}: {errors[0]}"
            return True
        return False

    def discard(self) -> None:
        """Drop a broken or cancelled pool without waiting for it."""
        self._started()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = None

    def close(self) -> None:
        self._started()
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        self.pool = None


class _CacheOpening:
    """The cache opened, and the kept result of this scan looked up and unpacked, in a
    background thread while the walk runs.

    A rescan of an unchanged folder is the walk plus these: opening checks every page of the
    database (tens of ms, more as it grows) and the kept result takes a query and an unpacking.
    SQLite and the walk's stat calls both leave the interpreter free, so on two cores the
    thread costs the walk nothing. Its outcome is applied by the scan's own thread
    (:meth:`_Run._take_cache`); the connection moves between the threads, never shared. A
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


# -- the session --------------------------------------------------------------------------------
class ScanSession:
    """One configured scan. ``run`` may be called several times (e.g. rescans).

    ``mp_context`` is the start method of the worker processes; by default ``forkserver`` where
    the platform has it and ``spawn`` elsewhere (see :mod:`neardup_core.scan.worker`).
    """

    def __init__(self, options: ScanOptions | None = None, *,
                 cache: FingerprintCache | None = None,
                 mp_context: str | None = None) -> None:
        self.options = (options or ScanOptions()).validate()
        self._cache = cache
        self._mp_context = mp_context or start_method()

    # The public entry point ------------------------------------------------------------------
    def run(self, paths: Sequence[str], progress: ProgressSink = null_progress,
            cancel: CancelToken | None = None) -> ScanResult:
        roots = check_roots(paths)
        return _Run(self, roots, progress, cancel or CancelToken()).execute()


class RunStages:
    """What a local and a Dask run share: progress events, cancellation notes and the walk
    (which always runs where the scan was started). Subclasses set roots, opt, progress,
    cancel, t0, notes, problems, stats and partial."""

    roots: tuple[str, ...]
    opt: ScanOptions
    progress: ProgressSink
    cancel: CancelToken
    t0: float
    notes: list[str]
    problems: list[Problem]
    stats: dict
    partial: bool

    def emit(self, stage: Stage, done: int, total: int | None, message: str = "") -> None:
        self.progress(ProgressEvent(stage, done, total, message, time.monotonic() - self.t0))

    def _mark_cancelled(self, where: str) -> None:
        if not self.partial:
            self.partial = True
            self.notes.append(f"Scan cancelled {where}: the results show what was found so far.")

    def _floor_and_threshold(self) -> tuple[float, float]:
        """The loosest score pairs are kept down to, and the threshold groups start at.

        SimHash alone searches only ``max_distance`` bits, which caps how loose it can go.
        """
        opt = self.opt
        floor = opt.floor
        if opt.method == Method.SIMHASH:
            floor = max(floor, float(simhash_similarity(opt.max_distance)))
            if floor > opt.floor:
                self.notes.append(f"With SimHash alone, pairs are searched up to {opt.max_distance}"
                                  f" differing bits, which is a similarity of "
                                  f"{floor:.0%}; use MinHash or both to look further.")
        self.stats["floor"] = floor
        return floor, max(opt.threshold, floor)

    # -- walking -------------------------------------------------------------------------------
    def _walk(self) -> list[FileEntry]:
        stats = WalkStats()
        entries: list[FileEntry] = []
        self.emit(Stage.WALK, 0, None, "Looking for files")
        try:
            for e in walk(self.roots, self.opt, cancel=self.cancel,
                          on_problem=self.problems.append, stats=stats):
                entries.append(e)
                if len(entries) % WALK_CHUNK == 0:
                    self.emit(Stage.WALK, len(entries), None, e.path)
                    self._walked(entries)
        except ScanCancelled:
            self._mark_cancelled("while looking for files")
        if not self.partial:
            self._walked(entries)
        self.emit(Stage.WALK, len(entries), len(entries), "")
        self.stats["walk"] = {k: getattr(stats, k) for k in
                              ("files", "skipped_hidden", "skipped_excluded", "skipped_small",
                               "skipped_type", "duplicates", "skipped_symlinks")}
        if stats.skipped_symlinks:
            self.notes.append(f"{stats.skipped_symlinks} symbolic links were not followed "
                              f"(turn on following links to include them).")
        if stats.skipped_small:
            self.notes.append(f"{stats.skipped_small} files smaller than {self.opt.min_size} "
                              f"bytes (empty files) were skipped.")
        return entries

    def _walked(self, entries: list[FileEntry]) -> None:
        """Called with the entries found so far, every WALK_CHUNK of them and at the end, so a
        run can prepare the next stage while the walk goes on."""


class _Run(RunStages):
    """The state of one run; split out so ScanSession stays a small, reusable object."""

    def __init__(self, session: ScanSession, roots: tuple[str, ...], progress: ProgressSink,
                 cancel: CancelToken) -> None:
        self.session = session
        self.opt = session.options
        self.roots = roots
        self.progress = progress
        self.cancel = cancel
        self.t0 = time.monotonic()
        self.notes: list[str] = []
        self.problems: list[Problem] = []
        self.stats: dict = {}
        self.partial = False
        self.settings = FingerprintSettings.from_options(self.opt)
        self.settings_key = self.opt.fingerprint_key()
        self.cache: FingerprintCache | None = None
        self._own_cache = False
        self._rows: dict[str, CacheEntry] = {}  # cache rows of this run, to add boilerplate fps
        self.workers = _Workers(self.opt.workers, session._mp_context, self.settings)
        self._looked = 0          # entries already looked up in the cache during the walk
        self._todo: list[FileEntry] = []  # ... and those of them it did not hold
        self._todo_bytes = 0
        self._told_no_workers = False
        # the kept whole result of this scan (neardup_core.store.snapshot), when the cache has one
        self._snap_key: str | None = None
        self._snap_state: str | None = None   # the folder state it was made from
        self._walk_state: str | None = None   # the folder state this run's walk saw
        self._walk_problems = 0
        self._replayable = True               # False once something only true now happened
        self._opening: _CacheOpening | None = None  # the cache being opened during the walk
        self._kept: _CacheOpening | None = None     # ... and the kept result it found
        self._walked_paths: list[str] = []          # every file the walk found, for the ranks

    def execute(self) -> ScanResult:
        self._open_cache()
        try:
            entries = self._walk()
            self._take_cache()
            self.stats["seconds_walk"] = round(time.monotonic() - self.t0, 4)
            self._walk_problems = len(self.problems)
            if self._snap_key is not None and not self.partial:
                self._walk_state = folder_state(entries, self.problems)
                if self._snap_state is not None:
                    kept = self._from_snapshot(entries)
                    if kept is not None:
                        return kept
            self._snap_state = None  # from here on the walk's entries are looked up one by one
            outcomes = self._read(entries) if not self.partial else {}
            self.stats["seconds_read"] = round(time.monotonic() - self.t0
                                               - self.stats["seconds_walk"], 4)
            docs, fps, entries_by_path = self._collect(entries, outcomes)
            result, notes_from = self._finish(docs, fps, entries_by_path)
            self.workers.close()  # before packing the result: less memory held at once
            self._keep(result, notes_from)
            return result
        finally:
            self.workers.close()
            self.stats["workers"] = {"start_method": self.workers.method,
                                     "pools": self.workers.pools}
            self._join_cache()  # when the walk failed: the cache it was opening is closed too
            if self.cache is not None and not self.partial:  # keep the cache within its bounds
                with contextlib.suppress(CacheError):  # housekeeping never fails a scan
                    self.cache.trim(self.opt.cache_limit, self.opt.cache_days)
            if self._own_cache and self.cache is not None:
                self.cache.close()

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
        for e in new:
            if e.path not in hits:
                self._todo.append(e)
                self._todo_bytes += e.size
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

    def _chosen(self, batch: Sequence[FileEntry]) -> dict[str, str] | None:
        """The codecs the user chose for files of ``batch`` (None: none), for its worker."""
        if not self.opt.encodings:
            return None
        return {e.path: c for e in batch if (c := self.opt.encoding_of(e.path)) is not None}

    def _inprocess(self, files: int, nbytes: int) -> bool:
        """Too little to read for worker processes to pay for their start."""
        return (self.opt.workers == 1 or files <= INPROCESS_MAX_FILES
                or nbytes <= INPROCESS_MAX_BYTES)

    # -- the kept whole result --------------------------------------------------------------
    def _from_snapshot(self, entries: list[FileEntry]) -> ScanResult | None:
        """The kept result, when the walk saw exactly the files it was made from."""
        assert self.cache is not None and self._snap_key is not None
        if self._walk_state != self._snap_state or self._kept is None:
            return None
        try:
            snap = self._kept.snapshot()
        except ValueError:
            with contextlib.suppress(CacheError):
                self.cache.drop_result(self._snap_key)
            return None
        total = len(entries)
        self.stats.update({"cache_hits": total, "read": 0, "snapshot": True,
                           "seconds_read": 0.0, "seconds_pairs": 0.0})
        self.emit(Stage.READ, total, total, "")
        _floor, threshold = self._floor_and_threshold()
        self.stats.update(snap.stats)
        self.problems.extend(snap.problems)
        self.notes.extend(snap.notes)
        self.emit(Stage.PAIRS, 3, 3, "")
        result = ScanResult(options=self.opt, roots=self.roots, documents=snap.documents,
                            problems=tuple(self.problems), simhash=snap.simhash,
                            minhash=snap.minhash, pairs=snap.pairs, threshold=threshold,
                            group_mode=self.opt.group_mode, partial=False,
                            seconds=round(time.monotonic() - self.t0, 3),
                            notes=tuple(self.notes), stats=self.stats)
        # facts about the documents that cost more than the grouping (see ScanResult.regroup)
        result.known(auto_rank=snap.rank, text_class=snap.text_class)
        if snap.groups is not None and snap.groups[:3] == (
                result.threshold, str(result.group_mode), grouping_code()):
            result.known(group_table=snap.groups[3])  # the groups it showed then
        self._group(result)
        return result

    def _simhash_pairs(self, index: HammingIndex, k: int, hubs: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
        """SimHash alone: every pair within k, unless there are far more than documents."""
        budget = max(SIMHASH_PAIRS_MIN, SIMHASH_PAIRS_PER_DOC * len(index))
        try:
            a, b, _d = index.all_pairs(k, max_pairs=budget)
            return a, b
        except PairLimitExceeded:
            pass
        a, b, _d = index.all_pairs(k, window=HAMMING_WINDOW, hubs=hubs)
        self.notes.append(f"Many documents here are near-copies of each other (more than "
                          f"{budget:,} similar pairs): they were linked around the file each "
                          f"group would keep rather than pair by pair; a few weak pairs among "
                          f"them may be missing.")
        return a, b

    def _keep(self, result: ScanResult, notes_from: int) -> None:
        """Keep this run's result for the next scan of the same, unchanged folders."""
        if self.cache is None or self._snap_key is None or self._walk_state is None or \
                self.partial or not self._replayable:
            return
        read_problems = result.problems[self._walk_problems:]
        if any(p.kind in _PASSING_PROBLEMS for p in read_problems):
            return  # a rescan must try those files again
        snap = Snapshot(documents=result.documents, problems=read_problems,
                        simhash=result.simhash, minhash=result.minhash, pairs=result.pairs,
                        notes=tuple(self.notes[notes_from:]),
                        stats={k: self.stats[k] for k in _SNAPSHOT_STATS if k in self.stats},
                        rank=result.computed("auto_rank"),
                        text_class=result.computed("text_class"),
                        groups=self._kept_groups(result))
        t = time.monotonic()
        try:
            self.cache.put_result(self._snap_key, self._walk_state, pack(snap))
        except CacheError:
            return  # e.g. a read-only cache: the next scan only goes without the shortcut
        self.stats["seconds_keep"] = round(time.monotonic() - t, 4)

    @staticmethod
    def _kept_groups(result: ScanResult) -> tuple[float, str, str, GroupTable] | None:
        table = result.computed("group_table")
        code = grouping_code()
        if table is None or code is None or result.references or result.ignored:
            return None  # groups that depend on choices a new scan does not carry over
        return result.threshold, str(result.group_mode), code, table

    # -- cache ----------------------------------------------------------------------------------
    def _open_cache(self) -> None:
        """Start opening the cache and looking up the kept result (see :class:`_CacheOpening`);
        :meth:`_take_cache` applies the outcome."""
        if not self.opt.use_cache:
            return
        self._snap_key = snapshot_key(self.roots, self.opt, self.settings_key)
        self._own_cache = self.session._cache is None
        self._opening = _CacheOpening(self.opt.cache_path, self.session._cache, self._snap_key)

    def _join_cache(self) -> _CacheOpening | None:
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
        if self._own_cache and self.cache is not None:
            with contextlib.suppress(Exception):
                self.cache.close()
        self.cache = None

    # -- reading + fingerprinting -----------------------------------------------------------------
    def _read(self, entries: list[FileEntry]) -> dict[str, Outcome]:
        self._walked_paths = [e.path for e in entries]
        outcomes: dict[str, Outcome] = {}
        total = len(entries)
        self._walked(entries)  # the walk looked up all but a cancelled remainder
        todo = self._todo
        if self._rows:
            for e in entries:
                hit = self._rows.get(e.path)
                if hit is not None:
                    outcomes[e.path] = _outcome_from_cache(hit)
        self.stats["cache_hits"] = len(outcomes)
        self.stats["read"] = len(todo)
        self.emit(Stage.READ, len(outcomes), total, "")
        fresh = self._run_batches(todo, None, Stage.READ, len(outcomes), total, "Reading")
        outcomes.update(fresh)
        if any(o.changed for o in fresh.values()):
            self._replayable = False
        if self.cache is not None and fresh:
            rows = [_cache_entry(o, self.settings_key) for o in fresh.values()
                    if not o.changed and (o.problem is None or o.problem.kind not in
                    (ProblemKind.LOST, ProblemKind.VANISHED, ProblemKind.UNREADABLE))
                    and self.opt.encoding_of(o.path) is None]
            self._rows.update((r.path, r) for r in rows)
            try:
                self.cache.put_many(rows)
            except CacheError as exc:
                self._cache_failed(exc)
        return outcomes

    def _run_batches(self, todo: list[FileEntry], drop_lines: np.ndarray | None, stage: Stage,
                     done0: int, total: int, verb: str) -> dict[str, Outcome]:
        """Run files through workers; survive dead workers; stop promptly on cancel."""
        out: dict[str, Outcome] = {}
        if not todo:
            return out
        nbytes = sum(e.size for e in todo)
        if not self.workers.started and self.workers.unavailable is None and \
                self._inprocess(len(todo), nbytes):
            self._run_here(todo, drop_lines, stage, done0, total, verb, out)
            return out
        queue: deque[list[FileEntry]] = deque(batches(todo))
        ready: deque[tuple[list[FileEntry], list[Outcome | Prepared]]] = deque()
        done = done0
        if drop_lines is None:
            self._read_while_workers_start(queue, ready)
            done = self._fingerprint_while_workers_start(ready, out, stage, done, total)
        if self.workers.get() is None:
            self._note_no_workers()
            for batch, items in ready:
                for o in fingerprint_prepared(items, self.settings, self.opt.max_size):
                    out[o.path] = o
                done += len(batch)
                self.emit(stage, done, total, batch[-1].path)
            self._run_here([e for b in queue for e in b], drop_lines, stage, done, total, verb,
                           out)
            return out

        # Files that were in flight when a worker died; run one at a time to find the culprit.
        suspects: deque[FileEntry] = deque()
        limit = 2 * self.opt.workers
        dead_pools = 0  # pools in a row that broke before returning anything
        while (queue or ready or suspects) and not self.cancel.cancelled:
            inflight: dict[Future, list[FileEntry]] = {}
            returned = 0
            if dead_pools >= DEAD_POOLS_LIMIT:
                left = [e for b in queue for e in b] + list(suspects)
                for e in left:
                    out[e.path] = lost(e, "worker processes could not be started")
                queue.clear()
                suspects.clear()
                self.notes.append(f"Worker processes kept failing as they started; "
                                  f"{len(left)} files were not read.")
                break
            pool = self.workers.get()
            if pool is None:
                left = list(suspects) + [e for b in queue for e in b]
                queue.clear()
                suspects.clear()
                self._note_no_workers()
                self._run_here(left, drop_lines, stage, done, total, verb, out)
                break
            try:
                while (queue or ready or suspects or inflight) and not self.cancel.cancelled:
                    if suspects:
                        if not inflight:
                            fut = pool.submit(process_batch, [suspects[0]], self.settings,
                                              self.opt.max_size, drop_lines,
                                              self._chosen([suspects[0]]))
                            inflight[fut] = [suspects[0]]
                    else:
                        while (ready or queue) and len(inflight) < limit:
                            if ready:
                                batch, items = ready.popleft()
                                fut = pool.submit(fingerprint_prepared, items, self.settings,
                                                  self.opt.max_size, drop_lines)
                            else:
                                batch = queue.popleft()
                                fut = pool.submit(process_batch, batch, self.settings,
                                                  self.opt.max_size, drop_lines,
                                                  self._chosen(batch))
                            inflight[fut] = batch
                    finished, _ = wait(inflight, timeout=0.2, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        batch = inflight[fut]
                        try:
                            results = fut.result()
                        except BrokenProcessPool:
                            raise
                        except Exception as exc:  # pickling trouble and the like
                            results = [lost(e, f"could not be processed: {exc}")
                                       for e in batch]
                        del inflight[fut]
                        returned += 1
                        if suspects and batch[0] is suspects[0]:
                            suspects.popleft()
                        for o in results:
                            out[o.path] = o
                        done += len(batch)
                        self.emit(stage, done, total, batch[-1].path)
                if self.cancel.cancelled:
                    for fut in inflight:
                        fut.cancel()
                    self.workers.discard()
            except BrokenProcessPool:
                # A worker died (killed, out of memory, a crash in a C library), or none could
                # start at all. Texts read ahead are read again like any other queued file.
                queue.extendleft(batch for batch, _ in reversed(ready))
                ready.clear()
                self.workers.discard()
                for fut, batch in list(inflight.items()):
                    if fut.done() and not fut.cancelled() and fut.exception() is None:
                        for o in fut.result():
                            out[o.path] = o
                        done += len(batch)
                        del inflight[fut]
                if not returned and self.workers.failed_to_start():
                    left = [e for b in inflight.values() for e in b] + list(suspects) + \
                        [e for b in queue for e in b]
                    queue.clear()
                    suspects.clear()
                    self._note_no_workers(script_hint=True)
                    self._run_here(left, drop_lines, stage, done, total, verb, out)
                    break
                dead_pools = 0 if returned else dead_pools + 1
                if suspects and len(inflight) == 1 and next(iter(inflight.values()))[0] \
                        is suspects[0]:
                    e = suspects.popleft()
                    out[e.path] = lost(e, "its worker process stopped unexpectedly while "
                                          "reading it")
                    done += 1
                    self.emit(stage, done, total, e.path)
                    continue
                for batch in inflight.values():
                    suspects.extend(batch)
                self.notes.append("A worker process stopped unexpectedly; the files it held "
                                  "were read again one by one.")
        if self.cancel.cancelled:
            self._mark_cancelled(f"while {verb.lower()} files")
        return out

    def _read_while_workers_start(self, queue: deque[list[FileEntry]],
                                  ready: deque[tuple[list[FileEntry], list[Outcome | Prepared]]]
                                  ) -> None:
        """Read (not fingerprint) the first batches here while the worker processes start.

        The fork server takes most of a second to load its modules and the segmenter, with one
        core busy and the other idle; reading and decoding is over half of a scan's work and
        needs nothing loaded, so this process does it meanwhile and the workers start with
        texts to fingerprint. It stops as soon as the workers are up (or READ_AHEAD_BYTES of
        text are waiting).

        Only plain-text files are read ahead: decoding them is Python code, whose failures are
        exceptions that become problems. A .docx goes through zlib and libxml2, C code that a
        hostile file could crash; those stay in the workers, where a crash costs one file and
        not the scan (or the app).
        """
        held = 0
        later: list[FileEntry] = []
        while queue and held < READ_AHEAD_BYTES and self.workers.warming and \
                not self.cancel.cancelled:
            batch = queue.popleft()
            text = [e for e in batch if not e.path.lower().endswith(_DOCX)]
            later.extend(e for e in batch if e.path.lower().endswith(_DOCX))
            if text:
                items = prepare_batch(text, self.opt.max_size, self._chosen(text))
                held += sum(len(x.got.text) for x in items if isinstance(x, Prepared))
                ready.append((text, items))
        queue.extendleft(reversed(list(batches(later))))
        if ready:
            self.stats["read_ahead"] = sum(len(b) for b, _ in ready)
        _load_grouping(self._walked_paths)

    def _fingerprint_while_workers_start(
            self, ready: deque[tuple[list[FileEntry], list[Outcome | Prepared]]],
            out: dict[str, Outcome], stage: Stage, done: int, total: int) -> int:
        """Fingerprint texts read ahead here, when everything that may be read ahead has been
        and the workers are still starting: otherwise this process would sit idle for most of
        a second (a folder of UTF-8 text is read in a fraction of the time the fork server
        takes to load). Costs loading the segmenter here (0.2 s, 50 MB), only then."""
        while ready and self.workers.warming and not self.cancel.cancelled:
            batch, items = ready[0]
            try:
                outcomes = fingerprint_prepared(items, self.settings, self.opt.max_size)
            except Exception:  # e.g. a user dictionary that cannot be loaded: the workers
                break          # meet it too, and say so per file as they do for any failure
            ready.popleft()
            for o in outcomes:
                out[o.path] = o
            done += len(batch)
            self.stats["fingerprinted_ahead"] = self.stats.get("fingerprinted_ahead", 0) + \
                len(batch)
            self.emit(stage, done, total, batch[-1].path)
        return done

    def _note_no_workers(self, *, script_hint: bool = False) -> None:
        if self._told_no_workers:
            return
        self._told_no_workers = True
        hint = (" From a Python script, call the scan under 'if __name__ == \"__main__\":' so "
                "that workers can start.") if script_hint else ""
        self.notes.append(f"Worker processes could not start ({self.workers.unavailable}), so "
                          f"the files were read in the scan's own process, more slowly.{hint}")

    def _run_here(self, todo: list[FileEntry], drop_lines: np.ndarray | None, stage: Stage,
                  done: int, total: int, verb: str, out: dict[str, Outcome]) -> None:
        """Read in this process: small jobs, or when worker processes cannot start."""
        for batch in batches(todo):
            if self.cancel.cancelled:
                self._mark_cancelled(f"while {verb.lower()} files")
                break
            for o in process_batch(batch, self.settings, self.opt.max_size, drop_lines,
                                   self._chosen(batch)):
                out[o.path] = o
            done += len(batch)
            self.emit(stage, done, total, batch[-1].path)

    def _collect(self, entries: list[FileEntry], outcomes: dict[str, Outcome]
                 ) -> tuple[list[Document], list[DocFingerprint], dict[str, FileEntry]]:
        docs: list[Document] = []
        fps: list[DocFingerprint] = []
        by_path = {e.path: e for e in entries}
        for e in entries:  # walk order: deterministic
            o = outcomes.get(e.path)
            if o is None:
                continue  # not reached before a cancel
            if o.problem is not None:
                self.problems.append(o.problem)
                continue
            assert o.extracted is not None and o.fingerprint is not None
            fmt, enc, conf, repl = o.extracted
            fp = o.fingerprint
            docs.append(Document(e.path, o.size, o.mtime_ns / 1e9, fmt, enc, conf, repl,
                                 fp.chars, fp.text_hash))
            fps.append(fp)
        return docs, fps, by_path

    # -- boilerplate ---------------------------------------------------------------------------
    def _boilerplate(self, docs: list[Document], fps: list[DocFingerprint],
                     entries: dict[str, FileEntry], pairs: PairTable) -> list[DocFingerprint]:
        """Drop lines that a large share of documents contain, then re-fingerprint those docs.

        Lines are the unit because boilerplate (letterheads, licence and disclaimer paragraphs,
        page furniture) comes as whole lines. Documents that are already near-copies of each
        other (score >= BOILERPLATE_SAME on their full text) count once: ten versions of one
        contract share their clauses because they are one document, not because the clauses are
        a template, and must still be found as a group.
        """
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        share = self.opt.boilerplate
        assert share is not None
        n_docs = len(docs)
        strong = pairs.score >= BOILERPLATE_SAME
        graph = coo_matrix((np.ones(int(strong.sum()), np.int8),
                            (pairs.a[strong], pairs.b[strong])), shape=(n_docs, n_docs))
        n_clusters, label = connected_components(graph, directed=False)
        if n_clusters < BOILERPLATE_MIN_DOCS:
            return fps
        need = max(BOILERPLATE_MIN_DOCS, math.ceil(share * n_clusters))
        # a line repeated within a document, or within a cluster, is one vote (made distinct below)
        sizes = np.fromiter((fp.line_hashes.size for fp in fps), dtype=np.int64, count=n_docs)
        cl = np.repeat(label.astype(np.int64), sizes)
        allv = np.concatenate([fp.line_hashes for fp in fps])
        if allv.size == 0:
            return fps
        # one vote per (cluster, line): sort by line then cluster, keep distinct rows, count
        order = np.lexsort((cl, allv))
        v, c = allv[order], cl[order]
        distinct = np.ones(v.size, dtype=bool)
        distinct[1:] = (v[1:] != v[:-1]) | (c[1:] != c[:-1])
        v = v[distinct]
        starts = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
        vals, counts = v[starts], np.diff(np.r_[starts, v.size])
        boiler = vals[counts >= need]  # sorted
        self.stats["boilerplate_lines"] = int(boiler.size)
        if boiler.size == 0:
            return fps
        # where they are a sliver of the text, a document keeps its first fingerprint
        line_doc = np.repeat(np.arange(n_docs, dtype=np.int64), sizes)
        held = np.isin(allv, boiler)   # the boilerplate lines' places, found once
        held_lines, held_doc = allv[held], line_doc[held]
        chars = np.fromiter((fp.chars for fp in fps), dtype=np.int64, count=n_docs)
        paths = [d.path for d in docs]
        learn = bp.candidates(held_lines, held_doc, boiler, chars, paths)
        lengths = bp.line_lengths(boiler, (bp.read_text(path, self.opt) for _, _, path in learn
                                           if not self.cancel.cancelled))
        dropped = bp.dropped_chars(held_lines, held_doc, n_docs, boiler, lengths)
        affected = np.flatnonzero(bp.to_reread(dropped, chars)).tolist()
        kept = int(np.count_nonzero(dropped)) - len(affected)
        self.notes.append(bp.note(boiler.size, need, n_clusters, len(affected), kept))
        key = f"{self.settings_key}:{hash128_hex(np.sort(boiler).tobytes().hex())}"
        out = list(fps)
        todo: list[FileEntry] = []
        for i in affected:
            row = self._rows.get(docs[i].path)
            if row is not None and row.boiler_key == key and row.text_hash == fps[i].text_hash \
                    and row.boiler_minhash is not None and row.boiler_simhash is not None:
                out[i] = dataclasses.replace(fps[i], simhash=row.boiler_simhash,
                                             minhash=row.boiler_minhash)
            else:
                todo.append(entries[docs[i].path])
        self.stats["boilerplate_reread"] = len(todo)
        if not todo:
            return out
        self.emit(Stage.READ, 0, len(todo), "Setting boilerplate aside")
        redo = self._run_batches(todo, boiler, Stage.READ, 0, len(todo), "Re-reading")
        redo_paths = {e.path for e in todo}
        updated: list[CacheEntry] = []
        for i in affected:
            o = redo.get(docs[i].path)
            if o is not None and o.fingerprint is not None and \
                    o.fingerprint.text_hash == fps[i].text_hash:
                out[i] = o.fingerprint
                row = self._rows.get(docs[i].path)
                if row is not None:
                    updated.append(dataclasses.replace(
                        row, boiler_key=key, boiler_simhash=o.fingerprint.simhash,
                        boiler_minhash=o.fingerprint.minhash))
            elif docs[i].path in redo_paths:
                # changed, vanished or cancelled since the first read: keep the full fingerprint
                self._replayable = False
        if self.cache is not None and updated:
            try:
                self.cache.put_many(updated)
            except CacheError as exc:
                self._cache_failed(exc)
        return out

    # -- pairs and groups ----------------------------------------------------------------------
    def _arrays(self, fps: list[DocFingerprint]) -> tuple[np.ndarray, np.ndarray]:
        n = len(fps)
        simh = np.fromiter((fp.simhash for fp in fps), dtype=np.uint64, count=n)
        k = self.opt.num_perm if self.opt.method != Method.SIMHASH else 0
        minh = np.zeros((n, k), dtype=np.uint32)
        if k:
            for i, fp in enumerate(fps):
                minh[i] = fp.minhash
        return simh, minh

    def _finish(self, docs: list[Document], fps: list[DocFingerprint],
                entries: dict[str, FileEntry]) -> tuple[ScanResult, int]:
        """The result, and where the notes of its pairing stages start (see ``_keep``)."""
        opt = self.opt
        simh, minh = self._arrays(fps)
        floor, threshold = self._floor_and_threshold()
        notes_from = len(self.notes)
        # the files groups would keep: crowded LSH buckets are linked around them (the result
        # needs the same ranks for its groups, so they are computed once, here)
        from neardup_core.grouping.groups import reference_rank

        rank = reference_rank(docs, opt.reference_folders)
        pairs = self._pairs(docs, simh, minh, floor, rank)
        first_pass = self.notes[notes_from:]
        if not self.partial and opt.boilerplate is not None and len(docs) >= BOILERPLATE_MIN_DOCS:
            new_fps = self._boilerplate(docs, fps, entries, pairs)
            if new_fps is not fps:
                simh, minh = self._arrays(new_fps)
                # what the first pairing said (crowded buckets...) was about texts with their
                # boilerplate; the pairs now come from the second one
                del self.notes[notes_from:notes_from + len(first_pass)]
                pairs = self._pairs(docs, simh, minh, floor, rank)
        result = ScanResult(options=opt, roots=self.roots, documents=tuple(docs),
                            problems=tuple(self.problems), simhash=simh, minhash=minh,
                            pairs=pairs, threshold=threshold, group_mode=opt.group_mode,
                            partial=self.partial, seconds=round(time.monotonic() - self.t0, 3),
                            notes=tuple(self.notes), stats=self.stats)
        result.known(auto_rank=rank)
        self._group(result)
        return result, notes_from

    def _group(self, result: ScanResult) -> None:
        self.emit(Stage.GROUP, 0, 1, "Grouping")
        t = time.monotonic()
        _ = result.group_table  # computed here, in the scanning thread, not in the GUI's
        self.stats["seconds_group"] = round(time.monotonic() - t, 4)
        self.emit(Stage.GROUP, 1, 1, "")
        self.emit(Stage.DONE, 1, 1, "")

    def _pairs(self, docs: list[Document], simh: np.ndarray, minh: np.ndarray,
               floor: float, rank: np.ndarray) -> PairTable:
        opt = self.opt
        n = len(docs)
        self.emit(Stage.PAIRS, 0, 3, "Finding similar pairs")
        t = time.monotonic()
        # Exact tier: identical normalised texts collapse to their first document.
        first: dict[str, int] = {}
        rep_of = np.empty(n, dtype=np.int64)
        for i, d in enumerate(docs):
            rep_of[i] = first.setdefault(d.text_hash, i)
        reps = np.flatnonzero(rep_of == np.arange(n))
        copies = np.flatnonzero(rep_of != np.arange(n))
        ca: list[np.ndarray] = []
        cb: list[np.ndarray] = []
        hubs = rank[reps]  # crowded buckets are linked around the best-ranked
        try:
            if reps.size >= 2 and opt.method in (Method.MINHASH, Method.BOTH):
                bands, rows = scan_params(floor, opt.num_perm, fp_weight=0.3, fn_weight=0.7)
                sig = minh[reps]
                simh_reps = simh[reps]
                seen = 0
                truncated = 0
                # A few bands at a time, scored and filtered at once: thousands of short
                # template files can share buckets in every band, and the candidate list of all
                # bands together would grow with the square of their number before filtering.
                for lo_band in range(0, bands, LSH_BANDS_PER_CHUNK):
                    nb = min(LSH_BANDS_PER_CHUNK, bands - lo_band)
                    part = sig[:, lo_band * rows:(lo_band + nb) * rows]
                    a, b, cut = candidate_pairs(part, nb, rows, max_bucket=LSH_MAX_BUCKET,
                                                hubs=hubs, chain_keys=simh_reps)
                    truncated += cut
                    seen += int(a.size)
                    keep = minhash_agreement(sig, a, b) >= np.float32(floor)
                    ca.append(reps[a[keep]])
                    cb.append(reps[b[keep]])
                    self.cancel.raise_if_cancelled()
                self.stats["lsh"] = {"bands": bands, "rows": rows, "candidates": seen,
                                     "truncated_buckets": int(truncated)}
                if truncated:
                    self.notes.append(f"{truncated} very crowded LSH buckets (many documents "
                                      f"alike) were linked around the file each group would "
                                      f"keep and in a chain rather than pair by pair; a few "
                                      f"weak pairs among them may be missing.")
            self.emit(Stage.PAIRS, 1, 3, "")
            self.cancel.raise_if_cancelled()
            if reps.size >= 2 and opt.method in (Method.SIMHASH, Method.BOTH):
                kk = opt.max_distance if opt.method == Method.SIMHASH else \
                    min(opt.max_distance, BOTH_SIMHASH_K)
                if opt.method == Method.SIMHASH:
                    kk = min(kk, distance_for_similarity(floor))
                index = HammingIndex(simh[reps], max_k=kk)
                if opt.method == Method.BOTH:  # there LSH gives the pairs, this adds some
                    a, b, _d = index.all_pairs(kk, window=HAMMING_WINDOW, hubs=hubs)
                else:
                    a, b = self._simhash_pairs(index, kk, hubs)
                self.stats["simhash_candidates"] = int(a.size)
                if index.windowed:
                    self.stats["simhash_windowed"] = True
                ca.append(reps[a])
                cb.append(reps[b])
            self.emit(Stage.PAIRS, 2, 3, "")
        except ScanCancelled:
            self._mark_cancelled("while pairing documents")
        if ca:
            a = np.concatenate(ca).astype(np.int64)
            b = np.concatenate(cb).astype(np.int64)
            lo, hi = np.minimum(a, b), np.maximum(a, b)
            key = unique_sorted(lo * n + hi)
            a, b = key // n, key % n
        else:
            a = b = np.empty(0, np.int64)
        dist = hamming(simh[a], simh[b])
        if minh.shape[1]:
            jac = minhash_agreement(minh, a, b)
            score = jac.copy()
        else:
            jac = np.full(a.size, np.nan, dtype=np.float32)
            score = simhash_similarity(dist)
        keep = score >= np.float32(floor)
        a, b, dist, jac, score = a[keep], b[keep], dist[keep], jac[keep], score[keep]
        exact = np.zeros(a.size, dtype=bool)
        # star edges for exact copies: O(copies), not O(copies^2)
        ea, eb = rep_of[copies], copies
        pa = np.concatenate([a, ea]).astype(np.int32)
        pb = np.concatenate([b, eb]).astype(np.int32)
        table = PairTable(
            a=pa, b=pb,
            distance=np.concatenate([dist, np.zeros(ea.size, np.uint8)]),
            jaccard=np.concatenate([jac, np.ones(ea.size, np.float32)
                                    if minh.shape[1] else np.full(ea.size, np.nan, np.float32)]),
            score=np.concatenate([score, np.ones(ea.size, np.float32)]),
            exact=np.concatenate([exact, np.ones(ea.size, bool)]),
        )
        self.stats["pairs"] = len(table)
        self.stats["exact_copies"] = int(copies.size)
        self.stats["seconds_pairs"] = round(time.monotonic() - t, 4)
        self.emit(Stage.PAIRS, 3, 3, "")
        return table


# -- helpers ------------------------------------------------------------------------------------
_GROUPING = "neardup_core.grouping.groups"


def _load_grouping(paths: Sequence[str] = ()) -> None:
    """Import what the end of the scan groups with (SciPy's graph routines, via cluster) in a
    thread, while this process waits for the workers, and look at the names of ``paths`` for
    copy markers there (what :func:`~neardup_core.grouping.groups.reference_rank` asks of each
    file).

    SciPy takes about 0.25 s to import. At the top of this module it delayed the start of the
    workers by that much on every cold scan; imported at the end it would lengthen the tail,
    when one core is idle. Here it overlaps the reading, and so do the names (half of the
    ranking's 50-80 ms on 10,000 files). Failure is silent: the import where the module is
    needed then raises as usual, and names not looked at here are looked at then.
    """
    if _GROUPING in sys.modules and not paths:
        return

    def load() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module(_GROUPING).warm_names(paths)

    threading.Thread(target=load, name="neardup-load-grouping", daemon=True).start()


def batches(entries: Iterable[FileEntry], files: int | None = None,
            size_limit: int | None = None) -> Iterator[list[FileEntry]]:
    """Consecutive runs of at most ``files`` files or about ``size_limit`` bytes (by default
    BATCH_FILES and BATCH_BYTES, read at call time)."""
    files = BATCH_FILES if files is None else files
    size_limit = BATCH_BYTES if size_limit is None else size_limit
    batch: list[FileEntry] = []
    size = 0
    for e in entries:
        batch.append(e)
        size += e.size
        if len(batch) >= files or size >= size_limit:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _outcome_from_cache(c: CacheEntry) -> Outcome:
    if c.problem_kind is not None:
        prob = Problem(c.path, ProblemKind(c.problem_kind), c.problem_message or "")
        return Outcome(c.path, c.size, c.mtime_ns, None, None, c.content_hash, prob)
    fp = DocFingerprint(simhash=c.simhash, minhash=c.minhash, text_hash=c.text_hash,
                        chars=c.chars, units=c.units, line_hashes=c.line_hashes)
    return Outcome(c.path, c.size, c.mtime_ns, (c.format, c.encoding, c.confidence, c.replaced),
                    fp, c.content_hash, None)


def _cache_entry(o: Outcome, settings_key: str) -> CacheEntry:
    if o.problem is not None:
        return CacheEntry(path=o.path, size=o.size, mtime_ns=o.mtime_ns,
                          content_hash=o.content_hash, settings_key=settings_key, format="",
                          encoding=None, confidence=None, replaced=0, chars=0, units=0,
                          text_hash="", simhash=0, minhash=np.empty(0, np.uint32),
                          line_hashes=np.empty(0, np.uint64), problem_kind=str(o.problem.kind),
                          problem_message=o.problem.message)
    assert o.extracted is not None and o.fingerprint is not None
    fmt, enc, conf, repl = o.extracted
    fp = o.fingerprint
    return CacheEntry(path=o.path, size=o.size, mtime_ns=o.mtime_ns, content_hash=o.content_hash,
                      settings_key=settings_key, format=fmt, encoding=enc, confidence=conf,
                      replaced=repl, chars=fp.chars, units=fp.units, text_hash=fp.text_hash,
                      simhash=fp.simhash, minhash=fp.minhash, line_hashes=fp.line_hashes,
                      problem_kind=None, problem_message=None)


def scan_folders(paths: Sequence[str], options: ScanOptions | None = None, *,
         progress: ProgressSink = null_progress, cancel: CancelToken | None = None) -> ScanResult:
    """One-call convenience for scripts: ``neardup_core.scan_folders(["~/Documents"])``."""
    expanded = [os.path.expanduser(p) for p in paths]
    return ScanSession(options).run(expanded, progress, cancel)


__all__ = ["ScanSession", "scan_folders"]
