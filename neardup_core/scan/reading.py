"""The reading stage of a local scan: files extracted and fingerprinted in worker processes
(or in the scan's own process when there are few, or when workers cannot start), with the
first batches read here while the workers start, and, once they are up, batches handed to them
while the walk still goes on (a long walk and the reading overlap). Each batch comes back
packed in columns (:mod:`neardup_core.scan.packed`), not as an object per file: unpickling
those was most of what this process did while the workers read.

A dead worker costs only the files it held: its batch is read again one file at a time to find
the file that killed it, which becomes a problem. A worker its watchdog ended (a PDF over the
per-file time or memory limit, :mod:`neardup_core.extract.limits`) left a record naming the
file and the limit: that file becomes the problem that says so, and the others go on at once.
A cancel stops the reading promptly; a pool that cannot even start sends the reading back into
this process, with a note.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from itertools import chain, islice
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from neardup_core.extract import FileEntry
from neardup_core.fingerprint.fingerprinter import FingerprintSettings
from neardup_core.models import LEGACY_SUFFIXES, NATIVE_SUFFIXES
from neardup_core.pool_ends import LostWorkerWatch
from neardup_core.progress import Stage
from neardup_core.scan.cache_lookup import outcome_from_cache
from neardup_core.scan.cache_write import CacheWrite, cache_rows
from neardup_core.scan.packed import Collected, fingerprint_packed, read_packed
from neardup_core.scan.pool import INPROCESS_MAX_BYTES, INPROCESS_MAX_FILES, WorkerPool
from neardup_core.scan.stages import RunStages
from neardup_core.scan.worker import (
    STOPPED_WHILE_READING,
    Outcome,
    Prepared,
    fingerprint_prepared,
    lost,
    over_limit,
    prepare_batch,
    process_batch,
)

if TYPE_CHECKING:  # a scan without the cache never opens it: no SQLite
    from neardup_core.store.cache import CacheEntry, FingerprintCache

__all__ = ["BATCH_BYTES", "BATCH_FILES", "DEAD_POOLS_LIMIT", "INPROCESS_BATCH_FILES",
           "INPROCESS_MAX_BYTES", "INPROCESS_MAX_FILES", "READ_AHEAD_BYTES", "TASK_BATCHES",
           "Reading", "batches", "load_grouping", "task_batches"]

#: A batch sent to a worker: small enough that cancel is quick and a crash loses little, large
#: enough that the per-batch costs (a round trip, one fingerprinting pass) stay small (measured
#: faster than half as many on the benchmark corpus). Collecting the workers' results is main-
#: process work, part of a scan's serial share: at 40,000 files it took 1.05-1.17 s of CPU with
#: 48 files a batch, 0.69-0.81 s with 96 and 0.64-0.82 s with 128 (side by side, two rounds;
#: issue 22). Most of it is per batch, not per file: the pool's manager thread spends about
#: 0.6 ms on each result it takes in, its feeder thread 0.2 ms on each task it sends. 192 files
#: a batch took 0.56-0.59 s against 0.67-0.71 s with 96, but cost the workers 0.5-0.8 s more
#: CPU (17.2-17.3 s against 16.6-16.8 s, and 0.2-0.3 s more wall time on two cores; side by
#: side, two rounds each): not worth it.
BATCH_FILES = 96
#: Batches a worker's task may hold while many are left (each read and fingerprinted as it
#: would be alone, and sent back as one: :func:`~neardup_core.scan.packed.read_packed`). The
#: round trips, not the files, were most of what collecting cost; fewer and larger tasks cut
#: them without the larger batches' cost in the workers (a task of four batches costs a worker
#: what four tasks of one do: 1.36 s of CPU for 3,840 files either way). At 40,000 files and
#: two workers, collecting took 0.49-0.53 s of CPU against 0.68-0.76 s with tasks of one
#: batch, and 0.47-0.49 s with eight (side by side, 2-3 rounds each; issue 22). Towards the
#: end of the reading the tasks shrink back to one batch (:func:`task_batches`), so that no
#: worker is left with a long task while the others are idle. A worker that dies leaves up to
#: this many batches' files to be read again one by one (see :meth:`Reading._run_batches`).
TASK_BATCHES = 4
#: A batch read in the scan's own process (small folders, no workers): a cancel waits for it,
#: and there is no round trip to save, so it stays small.
INPROCESS_BATCH_FILES = 48
BATCH_BYTES = 4 * 1024 * 1024
#: Pools that break before returning anything, in a row, before the scan stops trying (workers
#: that cannot even start would otherwise be retried once per file).
DEAD_POOLS_LIMIT = 8
#: Text (characters) the scan's own process may read ahead while the workers start.
READ_AHEAD_BYTES = 32 * 1024 * 1024
#: Read by native code a hostile file could crash: never read ahead in this process (a legacy
#: .doc may be a .docx under another name).
_NATIVE = tuple(sorted(NATIVE_SUFFIXES | LEGACY_SUFFIXES))
T = TypeVar("T")


class Reading(RunStages):
    """The reading stage of :class:`~neardup_core.scan.session.ScanSession`'s run (a mixin: the
    run sets the state below). Finishes the cache lookup of the walk (``_walked``) before it
    reads, and turns the cache off through ``_cache_failed`` when writing to it fails."""

    settings: FingerprintSettings
    settings_key: str
    cache: FingerprintCache | None
    workers: WorkerPool
    _rows: dict[str, CacheEntry]
    _todo: list[FileEntry]
    _told_no_workers: bool
    _replayable: bool
    _walked_paths: list[str]
    _todo_worker_only: bool
    #: bytes done and to do in the current run of batches (see _run_batches)
    _read_bytes: list[int]
    #: Batches handed to the workers while the walk goes on (see _send_early): in flight, and
    #: what came back, and how many of _todo's files they hold; _early_open until reading.
    _early: dict[Future, list[FileEntry]]
    _early_out: Collected
    _early_sent: int
    _early_done: int
    _early_open: bool
    #: :func:`load_grouping`'s thread, until the ranking waits for it
    _loading: threading.Thread | None
    #: The rows stored for the files this run read, by path, and their write while it lasts
    #: (see _write_rows): its CPU time, and where its note goes should it fail.
    _fresh_rows: dict[str, tuple]
    _cache_write: CacheWrite | None
    _cache_write_cpu: float
    _cache_write_note: int
    _cache_notes_moved: int
    _own_cache: bool

    def _init_reading(self) -> None:
        self._fresh_rows = {}
        self._cache_write = None
        self._cache_write_cpu = 0.0
        self._cache_write_note = 0
        self._cache_notes_moved = 0
        self._early = {}
        self._early_out = Collected()
        self._early_sent = 0
        self._early_done = 0
        self._early_open = True
        self._loading = None

    def _send_early(self) -> None:
        """While the walk goes on, once the workers are up: hand them the full batches of the
        files found so far (the cache lookup has already taken out what it answers), and take
        back what they finished, so that a long walk and the reading overlap (issue 22).
        Nothing is said about progress here: the reading stage counts these files when it
        starts. A pool that breaks is left to the reading stage, which knows what to do."""
        if not self._early_open or self.partial or self.cancel.cancelled:
            return
        pool = self.workers.pool
        if pool is None or self.workers.warming:
            return
        for fut in [f for f in self._early if f.done()]:
            if fut.cancelled() or fut.exception() is not None:
                self._early_open = False  # broken: _run_batches meets it
                return
            batch = self._early.pop(fut)
            self._early_out.add(batch, fut.result())
            self._early_done += len(batch)
        limit = 2 * self.opt.workers
        if len(self._early) >= limit:
            return
        # Only the files the free slots can take: slicing all of the unsent files on every
        # call made the walk quadratic (at 1,000,000 files the workers fall far behind the
        # walk, and the copy of what they had not taken yet grew to most of the folder).
        # How long the walk goes on is not known: tasks of TASK_BATCHES full batches (the
        # reading stage sends what is left, in tasks that shrink towards the end).
        start = self._early_sent
        rest = self._todo[start:start + (limit - len(self._early)) * TASK_BATCHES * BATCH_FILES]
        parts: list[list[FileEntry]] = []
        for batch in batches(rest):
            if len(batch) < BATCH_FILES and sum(e.size for e in batch) < BATCH_BYTES:
                break  # the last, unfinished batch waits for more files
            parts.append(batch)
            if len(parts) < TASK_BATCHES:
                continue
            try:
                fut, files = self._submit_read(pool, parts, None)
            except Exception:  # a broken pool: _run_batches meets it
                self._early_open = False
                return
            self._early[fut] = files
            self._early_sent += len(files)
            parts = []
            if len(self._early) >= limit:
                break

    def _drop_early(self) -> None:
        """A walk cancelled with batches in flight: they are not wanted."""
        if self._early:
            self._early.clear()
            self.workers.discard()

    def _read(self, entries: list[FileEntry]) -> Collected:
        """Every file's outcome: the cache's answers and what the workers read."""
        self._walked_paths = [e.path for e in entries]
        total = len(entries)
        self._early_open = False
        self._walked(entries)  # the walk looked up all but a cancelled remainder
        todo = self._todo[self._early_sent:]  # the others were sent during the walk
        hits = [e for e in entries if e.path in self._rows] if self._rows else []
        self.stats["cache_hits"] = len(hits)
        # the files the cache knew as problems (unreadable, too big...): not among the files
        # compared, so the summary's "N from the cache" does not count them
        self.stats["cache_hit_problems"] = sum(
            1 for e in hits if self._rows[e.path].problem_kind is not None)
        self.stats["read"] = len(self._todo)
        if self._early_sent:
            self.stats["read_during_walk"] = self._early_sent
        hit_bytes = sum(e.size for e in hits)
        all_bytes = sum(e.size for e in entries)
        self.emit(Stage.READ, len(hits), total, "", bytes_done=hit_bytes,
                  bytes_total=all_bytes)
        fresh = self._run_batches(todo, None, Stage.READ, len(hits), total, "Reading",
                                  bytes_done=hit_bytes, bytes_total=all_bytes)
        if self.cache is not None and len(fresh):
            self._cpu("results")
            self._write_rows(fresh)
            self._cpu("cache")
        if hits:
            fresh.put_all(hits, [outcome_from_cache(self._rows[e.path]) for e in hits])
        return fresh

    def _write_rows(self, fresh: Collected) -> None:
        """Store the rows of the files just read, in a thread of its own while the scan goes
        on (:mod:`~neardup_core.scan.cache_write`); :meth:`_settle_cache` takes the cache back."""
        assert self.cache is not None
        rows, changed = cache_rows(fresh, self.settings_key,
                                   self.opt.encoding_of if self.opt.encodings else None,
                                   time.time())
        if changed:
            self._replayable = False
        self._fresh_rows = rows
        self._cache_write = CacheWrite(self.cache, list(rows.values()),
                                       threaded=self._own_cache)
        self._cache_write_note = len(self.notes)

    def _cache_row(self, path: str) -> CacheEntry | None:
        """This run's cache row for ``path``: looked up, or made for a file it read."""
        row = self._rows.get(path)
        if row is None and path in self._fresh_rows:
            from neardup_core.store.cache import entry_of_row

            row = entry_of_row(self._fresh_rows[path], path)
        return row

    def _cache_busy(self) -> bool:
        """Whether the cache's rows are still being written (the run's end was interrupted
        while it waited for them): the cache is the writing thread's, not to be touched."""
        return self._cache_write is not None and self._cache_write.running

    def _aside_cpu(self) -> float:
        return self._cache_write.cpu() if self._cache_write is not None else \
            self._cache_write_cpu

    def _settle_cache(self) -> int:
        """Wait for the cache's rows being written, if they are, and take the cache back; a
        write that failed turns the cache off, its note where it would have been had the
        rows been written before the scan went on. Returns the notes put before the last
        ones so (0 or 1). A crash of the writing thread is raised here."""
        write = self._cache_write
        if write is None:
            return 0
        try:
            error = write.join()
        finally:
            # kept while the thread writes (a KeyboardInterrupt in the wait): the run's end
            # waits again rather than close the connection under it
            if not write.running:
                self._cache_write = None
                self._cache_write_cpu = write.cpu()
                cpu = self.stats.setdefault("cpu", {})
                cpu["cache"] = round(cpu.get("cache", 0.0) + self._cache_write_cpu, 4)
                if write.threaded:  # the part beside the scan's thread (benchmarks.scale_share)
                    self.stats["cpu_cache_thread"] = round(self._cache_write_cpu, 4)
        if self.cache is not write.cache:  # turned off meanwhile: closed now it is free
            if self._own_cache:
                with contextlib.suppress(Exception):
                    write.cache.close()
            return 0
        if error is None:
            return 0
        after = self.notes[self._cache_write_note:]
        del self.notes[self._cache_write_note:]
        self._cache_failed(error)
        self.notes.extend(after)
        self._cache_notes_moved += 1
        return 1

    def _run_batches(self, todo: list[FileEntry], drop_lines: np.ndarray | None, stage: Stage,
                     done0: int, total: int, verb: str, *, bytes_done: int = 0,
                     bytes_total: int | None = None) -> Collected:
        """Run files through workers; survive dead workers; stop promptly on cancel.

        Progress counts bytes as well as files (``bytes_done`` of ``bytes_total``, by default
        0 of ``todo``'s size): the time left is estimated from bytes, so that a few large files
        at the end are not taken for a second's work."""
        out = Collected()
        early, self._early = self._early, {}  # batches sent during the walk (first run only)
        if not todo and not early:
            return out
        nbytes = sum(e.size for e in todo)
        self._read_bytes = [bytes_done, nbytes if bytes_total is None else bytes_total]
        done0 += self._early_done  # what the workers finished during the walk
        out.extend(self._early_out)
        self._early_out, self._early_done = Collected(), 0
        sent_early = [e for b in early.values() for e in b]  # a few batches at most
        owed = out.files + len(sent_early) + len(todo)
        self._read_bytes[0] += sum(e.size for b, _ in out.parts for e in b)
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
            self._cpu("read_ahead")  # the workers' kind of work, done while they start
        if self.workers.get() is None:
            self._note_no_workers()
            for batch, items in ready:
                out.put_all(batch, fingerprint_prepared(items, self.settings, self.opt.max_size))
                done += len(batch)
                self._emit_read(stage, done, total, batch)
            self._run_here([e for b in queue for e in b], drop_lines, stage, done, total, verb,
                           out)
            return out

        # Files that were in flight when a worker died; run one at a time to find the culprit.
        suspects: deque[FileEntry] = deque()
        limit = 2 * self.opt.workers
        dead_pools = 0  # pools in a row that broke before returning anything
        while (queue or ready or suspects or early) and not self.cancel.cancelled:
            inflight: dict[Future, list[FileEntry]] = early
            early = {}
            returned = 0
            if dead_pools >= DEAD_POOLS_LIMIT:
                left = [e for b in queue for e in b] + list(suspects)
                for e in left:
                    out.put(e, lost(e, "worker processes could not be started"))
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
            # a worker killed as it sent its result (the OOM killer, say) leaves the pool
            # waiting for the rest of that message for good, its futures pending
            lost_worker = LostWorkerWatch(pool)
            try:
                while (queue or ready or suspects or inflight) and not self.cancel.cancelled:
                    if suspects:
                        if not inflight:
                            fut = pool.submit(read_packed, [suspects[0]], self.settings,
                                              self.opt.max_size, drop_lines,
                                              self._chosen([suspects[0]]))
                            inflight[fut] = [suspects[0]]
                    else:
                        while (ready or queue) and len(inflight) < limit:
                            k = task_batches(len(ready) + len(queue), limit)
                            # Taken off their queue only once submitted: a pool that broke
                            # since the last wait refuses the task (BrokenProcessPool), and
                            # its batches must still be there to be read again.
                            if ready:
                                got = list(islice(ready, k))
                                batch = _joined([b for b, _ in got])
                                fut = pool.submit(fingerprint_packed,
                                                  _joined([x for _, x in got]), self.settings,
                                                  self.opt.max_size, drop_lines,
                                                  _counts([b for b, _ in got]))
                                _drop_first(ready, len(got))
                            else:
                                parts = list(islice(queue, k))
                                fut, batch = self._submit_read(pool, parts, drop_lines)
                                _drop_first(queue, len(parts))
                            inflight[fut] = batch
                    finished, _ = wait(inflight, timeout=0.2, return_when=FIRST_COMPLETED)
                    if lost_worker.stuck(bool(finished) or not inflight):  # read again, as any
                        raise BrokenProcessPool("a worker process ended while sending its "
                                                "result back")
                    for fut in finished:
                        batch = inflight[fut]
                        try:
                            out.add(batch, fut.result())
                        except BrokenProcessPool:
                            raise
                        except Exception as exc:  # pickling trouble and the like
                            out.put_all(batch, [lost(e, f"could not be processed: {exc}")
                                                for e in batch])
                        del inflight[fut]
                        returned += 1
                        if suspects and batch[0] is suspects[0]:
                            suspects.popleft()
                        done += len(batch)
                        self._emit_read(stage, done, total, batch)
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
                        out.add(batch, fut.result())
                        done += len(batch)
                        self._read_bytes[0] += sum(e.size for e in batch)
                        del inflight[fut]
                stopped = self.workers.take_stopped()
                if stopped:  # a watchdog ended it: no suspects, no "stopped unexpectedly"
                    done = self._settle_stopped(stopped, inflight, suspects, queue, out, stage,
                                                done, total)
                    dead_pools = 0
                    continue
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
                    out.put(e, lost(e, STOPPED_WHILE_READING))
                    done += 1
                    self._emit_read(stage, done, total, [e])
                    continue
                for batch in inflight.values():
                    suspects.extend(batch)
                self.notes.append("A worker process stopped unexpectedly; the files it held "
                                  "were read again one by one.")
        if not self.cancel.cancelled and out.files != owed:
            self._account(out, chain(sent_early, todo))
        if self.cancel.cancelled:
            if early:  # cancelled before the reading began: what the walk sent is not wanted
                self.workers.discard()
            self._mark_cancelled(f"while {verb.lower()} files")
        return out

    def _account(self, out: Collected, pending: Iterable[FileEntry]) -> None:
        """A net under the reading's bookkeeping: a file that came back with no outcome (a
        defect, such as batches dropped with a task a broken pool refused) is listed as a
        problem rather than left out of the result without a word."""
        seen = {e.path for batch, _ in out.parts for e in batch}
        seen.update(e.path for e, _ in out.single)
        missing = [e for e in pending if e.path not in seen]
        for e in missing:
            out.put(e, lost(e, "was not read: the scan lost track of it (please report this)"))
        if missing:
            self.notes.append(f"{len(missing)} files were not read: the scan lost track of "
                              f"them (please report this).")

    def _submit_read(self, pool: Executor, parts: list[list[FileEntry]],
                     drop_lines: np.ndarray | None) -> tuple[Future, list[FileEntry]]:
        """One worker task that reads the batches ``parts``: its future, and their files."""
        batch = _joined(parts)
        return pool.submit(read_packed, batch, self.settings, self.opt.max_size, drop_lines,
                           self._chosen(batch), _counts(parts)), batch

    def _settle_stopped(self, stopped: dict[str, str], inflight: dict[Future, list[FileEntry]],
                        suspects: deque[FileEntry], queue: deque[list[FileEntry]],
                        out: Collected, stage: Stage, done: int, total: int) -> int:
        """After a worker's watchdog ended it (see :mod:`neardup_core.extract.limits`): each
        file it stopped becomes the problem that says which limit it passed; the other files
        in flight were lost only with the pool, so they go back to the queue as they were
        (not read one by one as suspects, which would read a 60-second file twice). Returns
        the files done so far."""
        held = {id(e) for e in suspects}
        again: list[FileEntry] = []
        for batch in inflight.values():
            for e in batch:
                if e.path in stopped:
                    out.put(e, over_limit(e, stopped[e.path]))
                    done += 1
                    self._emit_read(stage, done, total, [e])
                elif id(e) not in held:
                    again.append(e)
        inflight.clear()
        left = [e for e in suspects if e.path not in stopped]
        suspects.clear()
        suspects.extend(left)
        queue.extendleft(reversed(list(batches(again))))
        return done

    def _read_while_workers_start(self, queue: deque[list[FileEntry]],
                                  ready: deque[tuple[list[FileEntry], list[Outcome | Prepared]]]
                                  ) -> None:
        """Read (not fingerprint) the first batches here while the worker processes start.

        The fork server takes a while to load its modules and the segmenter, with one core
        busy and the other idle; reading and decoding is over half of a scan's work and
        needs nothing loaded, so this process does it meanwhile and the workers start with
        texts to fingerprint. It stops as soon as the workers are up (or READ_AHEAD_BYTES of
        text are waiting).

        Only plain-text and RTF files are read ahead: decoding them is Python code, whose
        failures are exceptions that become problems. A .docx, .odt, .pdf or web page goes
        through zlib, libxml2 or PDFium, C code that a hostile file could crash; those stay in
        the workers, where a crash costs one file and not the scan (or the app).
        """
        held = 0
        later: list[FileEntry] = []
        while queue and held < READ_AHEAD_BYTES and self.workers.warming and \
                not self.cancel.cancelled:
            batch = queue.popleft()
            text = [e for e in batch if not e.path.lower().endswith(_NATIVE)]
            later.extend(e for e in batch if e.path.lower().endswith(_NATIVE))
            if text:
                items = prepare_batch(text, self.opt.max_size, self._chosen(text))
                held += sum(len(x.got.text) for x in items if isinstance(x, Prepared))
                ready.append((text, items))
        queue.extendleft(reversed(list(batches(later))))
        if ready:
            self.stats["read_ahead"] = sum(len(b) for b, _ in ready)
        self._loading = load_grouping(self._walked_paths)

    def _fingerprint_while_workers_start(
            self, ready: deque[tuple[list[FileEntry], list[Outcome | Prepared]]],
            out: Collected, stage: Stage, done: int, total: int) -> int:
        """Fingerprint texts read ahead here, when everything that may be read ahead has been
        and the workers are still starting: otherwise this process would sit idle for most of
        a second (a folder of UTF-8 text is read in a fraction of the time the fork server
        takes to load). Costs loading the segmenter here (time and memory), only then."""
        while ready and self.workers.warming and not self.cancel.cancelled:
            batch, items = ready[0]
            try:
                outcomes = fingerprint_prepared(items, self.settings, self.opt.max_size)
            except Exception:  # e.g. a user dictionary that cannot be loaded: the workers
                break          # meet it too, and say so per file as they do for any failure
            ready.popleft()
            out.put_all(batch, outcomes)
            done += len(batch)
            self.stats["fingerprinted_ahead"] = self.stats.get("fingerprinted_ahead", 0) + \
                len(batch)
            self._emit_read(stage, done, total, batch)
        return done

    def _grouping_loaded(self) -> None:
        """Wait for :func:`load_grouping`'s thread, if this run started one: the ranking then
        takes what it prepared rather than doing it again beside it (its imports are the next
        stages' anyway), and what it prepared is not set after the ranking let it go."""
        loading, self._loading = self._loading, None
        if loading is not None:
            loading.join()

    def _note_no_workers(self, *, script_hint: bool = False) -> None:
        if self._told_no_workers:
            return
        self._told_no_workers = True
        hint = (" From a Python script, call the scan under 'if __name__ == \"__main__\":' so "
                "that workers can start.") if script_hint else ""
        self.notes.append(f"Worker processes could not start ({self.workers.unavailable}), so "
                          f"the files were read in the scan's own process, more slowly.{hint}")

    def _run_here(self, todo: list[FileEntry], drop_lines: np.ndarray | None, stage: Stage,
                  done: int, total: int, verb: str, out: Collected) -> None:
        """Read in this process: small jobs, or when worker processes cannot start."""
        for batch in batches(todo, INPROCESS_BATCH_FILES):
            if self.cancel.cancelled:
                self._mark_cancelled(f"while {verb.lower()} files")
                break
            out.put_all(batch, process_batch(batch, self.settings, self.opt.max_size, drop_lines,
                                             self._chosen(batch)))
            done += len(batch)
            self._emit_read(stage, done, total, batch)

    def _emit_read(self, stage: Stage, done: int, total: int, batch: Sequence[FileEntry]
                   ) -> None:
        """A reading event for ``batch`` just finished: files and bytes done so far."""
        counted = self._read_bytes
        counted[0] += sum(e.size for e in batch)
        self.emit(stage, done, total, batch[-1].path, bytes_done=counted[0],
                  bytes_total=counted[1])

    def _chosen(self, batch: Sequence[FileEntry]) -> dict[str, str] | None:
        """The codecs the user chose for files of ``batch`` (None: none), for its worker."""
        if not self.opt.encodings:
            return None
        return {e.path: c for e in batch if (c := self.opt.encoding_of(e.path)) is not None}

    def _inprocess(self, files: int, nbytes: int) -> bool:
        """Too little to read for worker processes to pay for their start, and nothing that
        only a worker may read (a PDF, a Word 97-2003 file: see WORKER_ONLY_SUFFIXES)."""
        if self._todo_worker_only:
            return False
        return (self.opt.workers == 1 or files <= INPROCESS_MAX_FILES
                or nbytes <= INPROCESS_MAX_BYTES)


_GROUPING = "neardup_core.grouping.groups"
#: What the stages after the reading import besides the grouping (and SciPy with it): the pair
#: search and the excerpts' containment index. A few milliseconds, but on no worker's time.
_AFTER_READING = ("neardup_core.pairs.find", "neardup_core.pairs.containment")


def load_grouping(paths: Sequence[str] = ()) -> threading.Thread | None:
    """Import what the end of the scan groups with (SciPy's graph routines, via the grouping
    module) and pairs with (:data:`_AFTER_READING`) in a thread, while this process waits for
    the workers, and prepare there the ranking of ``paths`` (their folders and names looked at
    for copy markers, their order: what :func:`~neardup_core.grouping.groups.reference_rank`
    would otherwise do at the end).

    SciPy is slow to import. At the top of the scan's modules it delayed the start of the
    workers by that import on every cold scan; imported at the end it would lengthen the tail,
    when one core is idle. Here it overlaps the reading, and so does most of the ranking's
    time. SciPy's import cannot be made smaller from here: ``scipy.sparse.csgraph`` (all the
    grouping uses, with ``csr_matrix``) loads ``scipy.sparse``, whose array-API layer looks at
    every attribute of NumPy (importing ``numpy.f2py`` and ``numpy.testing``), and
    ``scipy.sparse.linalg`` and ``scipy.linalg`` with it (0.17-0.18 s of CPU here, issue 22).
    Failure is silent: the import where the module is needed then raises as usual, and what
    was not prepared here is done by the ranking. Returns the thread (None: nothing to do),
    which the scan joins before it ranks (:meth:`Reading._grouping_loaded`).
    """
    if _GROUPING in sys.modules and not paths:
        return None

    def load() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module(_GROUPING).warm_names(paths)
        for name in _AFTER_READING:
            with contextlib.suppress(Exception):
                importlib.import_module(name)

    thread = threading.Thread(target=load, name="neardup-load-grouping", daemon=True)
    thread.start()
    return thread


def task_batches(left: int, limit: int) -> int:
    """How many of the ``left`` batches still to send the next task takes, with ``limit``
    tasks in flight at most: as many as each slot would get if they were shared out now, at
    least one and at most TASK_BATCHES (read at call time). The tasks shrink as the batches
    run out, and the last rounds are single batches, as before."""
    return max(1, min(TASK_BATCHES, left // max(1, limit)))


def _drop_first(queue: deque[Any], n: int) -> None:
    for _ in range(n):
        queue.popleft()


def _joined(parts: list[list[T]]) -> list[T]:
    return parts[0] if len(parts) == 1 else [x for p in parts for x in p]


def _counts(parts: list[list[T]]) -> list[int] | None:
    """How many files each batch of a task holds (None: a task of one batch)."""
    return None if len(parts) == 1 else [len(p) for p in parts]


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
