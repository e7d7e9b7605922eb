"""ScanSession: folders in, an immutable ScanResult out.

walk -> (cache lookup) -> extract + fingerprint in worker processes -> boilerplate pass ->
exact tier -> candidate pairs (LSH bands and/or the permuted-table Hamming index) -> scores ->
groups. Every stage reports progress and honours the cancel token; one bad file becomes a
Problem, a dead worker process costs only the files it held, and a broken cache costs only
speed. Pairs are scored once down to the loosest threshold the slider allows, so regrouping
needs no rescan.

Each stage has its module: the walk and what a local and a Dask run share
(:mod:`~neardup_core.scan.stages`), the cache (:mod:`~neardup_core.scan.cache_lookup`) and the
kept whole result (:mod:`~neardup_core.scan.kept_result`), reading in worker processes
(:mod:`~neardup_core.scan.reading`, the pool in :mod:`~neardup_core.scan.pool`), the boilerplate
pass (:mod:`~neardup_core.scan.boilerplate_pass`) and the pair search
(:mod:`neardup_core.pairs.find`). This module holds the session and the order of the stages.

The session owns no Qt; besides the process pool it only runs short helper threads (starting
the pool, opening the cache and unpacking a kept result while the walk runs, importing the
grouping code) that never touch the result.
The GUI calls :meth:`ScanSession.run` from a worker thread, the CLI from its main thread.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from neardup_core.errors import CacheError
from neardup_core.extract import FileEntry, check_roots
from neardup_core.fingerprint.fingerprinter import FingerprintSettings
from neardup_core.gcpause import gc_kept, gc_paused
from neardup_core.heap import give_back
from neardup_core.models import Document, Method, PairTable, Problem, ScanOptions
from neardup_core.progress import CancelToken, ProgressSink, Stage, null_progress
from neardup_core.result import ScanResult, text_classes
from neardup_core.scan.boilerplate_pass import BOILERPLATE_MIN_DOCS, BoilerplatePass
from neardup_core.scan.cache_lookup import CacheLookup, CacheOpening
from neardup_core.scan.excerpts_pass import ExcerptsPass
from neardup_core.scan.kept_result import KeptResult
from neardup_core.scan.packed import Collected, FingerprintTable
from neardup_core.scan.pool import WorkerPool, start_method
from neardup_core.scan.reading import Reading
from neardup_core.store.folder_state import folder_state

if TYPE_CHECKING:  # a scan without the cache never opens it: no SQLite
    from neardup_core.store.cache import CacheEntry, FingerprintCache

__all__ = ["ScanSession", "scan_folders"]


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


class _Run(CacheLookup, KeptResult, Reading, BoilerplatePass, ExcerptsPass):
    """The state of one run; split out so ScanSession stays a small, reusable object. Its
    stages are mixins, one module each (see the module's docstring); this class holds their
    state and runs them in order."""

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
        self._cpu_mark = self._cpu_start = time.process_time()
        self.partial = False
        self.settings = FingerprintSettings.from_options(self.opt)
        self.settings_key = self.opt.fingerprint_key()
        self.cache: FingerprintCache | None = None
        self.given_cache = session._cache
        self._own_cache = False
        self._rows: dict[str, CacheEntry] = {}  # cache rows of this run, to add boilerplate fps
        self.workers = WorkerPool(self.opt.workers, session._mp_context, self.settings)
        self._looked = 0          # entries already looked up in the cache during the walk
        self._todo: list[FileEntry] = []  # ... and those of them it did not hold
        self._todo_bytes = 0
        self._todo_worker_only = False  # a file only a worker may read is to be read
        self._told_no_workers = False
        # the kept whole result of this scan (neardup_core.store.snapshot), when the cache has one
        self._snap_key: str | None = None
        self._snap_state: str | None = None   # the folder state it was made from
        self._walk_state: str | None = None   # the folder state this run's walk saw
        self._walk_problems = 0
        self._walk_notes = 0                  # notes said by the walk (and before it)
        self._replayable = True               # False once something only true now happened
        self._opening: CacheOpening | None = None  # the cache being opened during the walk
        self._kept: CacheOpening | None = None     # ... and the kept result it found
        self._walked_paths: list[str] = []          # every file the walk found, for the ranks
        self.boiler_lines: np.ndarray | None = None  # set aside by the boilerplate pass
        # collected, until _finish takes them
        self._fps: FingerprintTable | None = None
        self._entries: list[FileEntry] = []
        self._init_reading()

    def execute(self) -> ScanResult:
        with gc_kept():  # what the scan's pauses make is not looked at again until it ends
            return self._execute()

    def _execute(self) -> ScanResult:
        self._cpu_mark = self._cpu_start = time.process_time()
        self._open_cache()
        try:
            entries = self._walk()
            if self.partial:
                self._drop_early()
            self._take_cache()
            self._cpu("walk")
            self.stats["seconds_walk"] = round(time.monotonic() - self.t0, 4)
            self._walk_problems = len(self.problems)
            self._walk_notes = len(self.notes)
            if self._snap_key is not None and not self.partial:
                self._walk_state = folder_state(entries, self.problems)
                if self._snap_state is not None:
                    kept = self._from_snapshot(entries)
                    if kept is not None:
                        return kept
            self._snap_state = None  # from here on the walk's entries are looked up one by one
            # Reading makes an object or a few per batch and the grouping code's imports, and
            # collecting one per file, all kept: collections found nothing to free in them (at
            # 40,000 files 0.10 s of the reading window and 0.04 s of collecting went to them)
            with gc_paused():
                outcomes = self._read(entries) if not self.partial else Collected()
                self._cpu("results")  # collecting the workers' outcomes
                if self.workers.ready_cpu is not None:  # what this process did before them
                    self.stats["cpu_until_workers"] = round(
                        max(0.0, self.workers.ready_cpu - self._cpu_start), 4)
                self.stats["seconds_read"] = round(time.monotonic() - self.t0
                                                   - self.stats["seconds_walk"], 4)
                docs, self._fps, self._entries = self._collect(entries, outcomes)
            # what the scan keeps of the outcomes and the walk is in docs and the table now
            # (the walk's entries stay, for the boilerplate pass's re-read only)
            del outcomes, entries
            self._todo = []
            give_back()  # the batches' pages (220 MB at 200,000 files), before the pair search
            self._cpu("collect")
            result, notes_from = self._finish(docs)
            self.workers.close()  # before packing the result: less memory held at once
            self._cpu("close")
            self._keep(result, notes_from)
            self._cpu("keep")
            return result
        finally:
            self.workers.close()
            self.stats["workers"] = {"start_method": self.workers.method,
                                     "pools": self.workers.pools}
            try:
                self._settle_cache()  # the rows being written, before the cache is trimmed
            finally:  # even when the writing thread crashed, or the wait was interrupted
                self._close_cache()

    def _close_cache(self) -> None:
        """Trim and close the cache at the run's end, unless its rows are still being written
        (the wait for them was interrupted): the connection is then the writing thread's,
        left to it (not closed under it; its transaction commits or is rolled back)."""
        self._join_cache()  # when the walk failed: the cache it was opening is closed too
        if self._cache_busy():
            return
        if self.cache is not None and not self.partial:  # keep the cache within its bounds
            with contextlib.suppress(CacheError):  # housekeeping never fails a scan
                self.cache.trim(self.opt.cache_limit, self.opt.cache_days)
        if self._own_cache and self.cache is not None:
            self.cache.close()

    def _collect(self, entries: list[FileEntry], outcomes: Collected
                 ) -> tuple[list[Document], FingerprintTable, list[FileEntry]]:
        """The documents and fingerprints in walk order (files not reached before a cancel
        have none), their problems after the walk's."""
        k = self.opt.num_perm if self.opt.method != Method.SIMHASH else 0
        got = outcomes.assemble(entries, k)
        self.problems.extend(got.problems)
        if got.changed:
            self._replayable = False
        return got.documents, got.fingerprints, entries

    # -- pairs and groups ----------------------------------------------------------------------
    def _walked(self, entries: list[FileEntry]) -> None:
        """The cache lookup of the files found so far (:class:`CacheLookup`), then the full
        batches of those left to read go to the workers, if they are up (:class:`Reading`)."""
        super()._walked(entries)
        self._send_early()

    def _finish(self, docs: list[Document]) -> tuple[ScanResult, int]:
        """The result, and where the notes of its pairing stages start (see ``_keep``).

        Takes the collected table and the walk's entries from the run, so that each is freed
        as soon as no stage needs it: the entries and the line hashes after the boilerplate
        pass, the first MinHash and SimHash columns once the boilerplate pass has replaced
        them (about 1 KB a file at 1,000,000 files, issue 22)."""
        fps, entries = self._fps, self._entries
        self._fps, self._entries = None, []
        assert fps is not None
        opt = self.opt
        simh, minh = fps.simhash, fps.minhash
        floor, threshold = self._floor_and_threshold()
        notes_from = len(self.notes)
        # the files groups would keep: crowded LSH buckets are linked around them (the result
        # needs the same ranks for its groups, so they are computed once, here)
        from neardup_core.grouping.groups import reference_rank
        from neardup_core.grouping.reference import forget_warmed

        self._grouping_loaded()
        rank = reference_rank(docs, opt.reference_folders)
        forget_warmed()
        self._cpu("collect")
        # which documents have one text: the pairs' exact tier, the excerpts' one document a
        # text and the groups all read it (each compared the hashes itself, issue 22); the
        # table holds the documents' hashes as a list already
        text_class = text_classes(fps.text_hash)
        pairs = self._pairs(docs, simh, minh, floor, rank, text_class)
        first_pass = self.notes[notes_from:]
        changed = False
        if not self.partial and opt.boilerplate is not None and len(docs) >= BOILERPLATE_MIN_DOCS:
            settled = self._cache_notes_moved
            new_fps = self._boilerplate(docs, fps, entries, pairs)
            notes_from += self._cache_notes_moved - settled  # a failed write's note, put before
            self._cpu("boilerplate")
            changed = new_fps is not fps
            fps = new_fps  # the first SimHash and MinHash columns go with the first table
            del new_fps
        # no later stage reads the walk's entries or the line hashes, nor this run's new cache
        # rows (held by the writing thread until they are stored: 2.5 KB a file)
        del entries
        self._fresh_rows = {}
        fps = fps.without_lines()
        if changed:
            simh, minh = fps.simhash, fps.minhash
            # what the first pairing said (crowded buckets...) was about texts with their
            # boilerplate; the pairs now come from the second one
            del self.notes[notes_from:notes_from + len(first_pass)]
            del pairs
            give_back()
            pairs = self._pairs(docs, simh, minh, floor, rank, text_class)
        give_back()
        excerpts = self._excerpts(docs, fps, pairs, threshold, text_class)
        self._cpu("excerpts")
        # the cache's rows were written meanwhile (see Reading._write_rows); a failure's note
        # goes into the result
        if self._cache_write is not None:  # (no 'cache' stage in a scan without one)
            notes_from += self._settle_cache()
            self._cpu("cache")
        result = ScanResult(options=opt, roots=self.roots, documents=tuple(docs),
                            problems=tuple(self.problems), simhash=simh, minhash=minh,
                            pairs=pairs, threshold=threshold, group_mode=opt.group_mode,
                            partial=self.partial, seconds=round(time.monotonic() - self.t0, 3),
                            notes=tuple(self.notes), stats=self.stats, excerpt_table=excerpts)
        result.known(auto_rank=rank, text_class=text_class)
        self._group(result)
        self._cpu("group")
        return result, notes_from

    def _group(self, result: ScanResult) -> None:
        self.emit(Stage.GROUP, 0, 1, "Grouping")
        t = time.monotonic()
        _ = result.group_table  # computed here, in the scanning thread, not in the GUI's
        self.stats["seconds_group"] = round(time.monotonic() - t, 4)
        self.emit(Stage.GROUP, 1, 1, "")
        self.emit(Stage.DONE, 1, 1, "")

    def _pairs(self, docs: list[Document], simh: np.ndarray, minh: np.ndarray,
               floor: float, rank: np.ndarray, text_class: np.ndarray | None = None
               ) -> PairTable:
        from neardup_core.pairs.find import find_pairs  # not needed when a kept result answers

        pairs, cancelled = find_pairs(docs, simh, minh, floor, rank, self.opt, emit=self.emit,
                                      cancel=self.cancel, notes=self.notes, stats=self.stats,
                                      text_class=text_class)
        self._cpu("pairs")
        if cancelled:
            self._mark_cancelled("while pairing documents")
        return pairs


def scan_folders(paths: Sequence[str], options: ScanOptions | None = None, *,
         progress: ProgressSink = null_progress, cancel: CancelToken | None = None) -> ScanResult:
    """One-call convenience for scripts: ``neardup_core.scan_folders(["~/Documents"])``."""
    expanded = [os.path.expanduser(p) for p in paths]
    return ScanSession(options).run(expanded, progress, cancel)

