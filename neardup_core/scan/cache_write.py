"""The fingerprint cache's new rows, written after the reading while the scan goes on.

A cold scan with the cache on stored a row per file read once the workers were done: an
outcome object per file made from the packed batches, a cache entry per outcome, then SQLite's
inserts, all in the scan's thread, on the critical path (about 1 s of CPU at 40,000 files,
issue 22). The rows are made here straight from the batches' columns, and written by a thread
of their own while the scan pairs the documents and finds their excerpts: SQLite leaves the
interpreter free while it works.

The connection moves to the writing thread and back (it is never used by two threads at once):
the scan takes it back (:meth:`CacheWrite.join`) before it uses the cache again, and before it
ends, cancelled or not, so the cache holds what it held when the rows were written in the
scan's own thread. A write that fails is reported then, and the scan turns the cache off as
before.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from neardup_core.errors import CacheError
from neardup_core.models import ProblemKind

if TYPE_CHECKING:  # a scan without the cache never opens it: no SQLite
    from neardup_core.scan.packed import Collected
    from neardup_core.store.cache import FingerprintCache

__all__ = ["CacheWrite", "cache_rows"]

#: Problems that say nothing about the file's bytes: never stored (see TRANSIENT_PROBLEMS).
_NOT_KEPT = frozenset({ProblemKind.LOST, ProblemKind.VANISHED, ProblemKind.UNREADABLE})
_LE32, _LE64 = np.dtype("<u4"), np.dtype("<u8")


def cache_rows(collected: Collected, settings_key: str,
               chosen: Callable[[str], str | None] | None, now: float
               ) -> tuple[dict[str, tuple], bool]:
    """The rows to store for what ``collected`` read, by path (where a file came back twice,
    its last answer counts), as :meth:`~neardup_core.store.cache.FingerprintCache.put_rows`
    takes them; and whether a file changed while it was read. The rows are those
    :func:`~neardup_core.scan.cache_lookup.cache_entry` and ``put_many`` made: none for a file
    that changed while read, whose problem depends on the moment, or (``chosen``: the codec the
    user chose for a path, or None) that was read in a chosen codec."""
    from neardup_core.store.cache import stored_path

    final: dict[str, tuple[tuple | None, bool]] = {}
    for batch, p in collected.all_packed():
        paths = [e.path for e in batch]
        sizes, mtimes = p.size.tolist(), p.mtime_ns.tolist()
        changed = p.changed.tolist()
        simhash = np.ascontiguousarray(p.simhash, _LE64).view("<i8").tolist()
        step = 4 * int(p.minhash.shape[1])
        minhash = np.ascontiguousarray(p.minhash, _LE32).tobytes()
        lines = np.ascontiguousarray(p.line_hashes, _LE64).tobytes()
        line_at = np.concatenate(([0], np.cumsum(p.line_counts) * 8)).tolist()
        winnow = np.ascontiguousarray(p.winnow, _LE32).tobytes()
        winnow_at = np.concatenate(([0], np.cumsum(p.winnow_counts) * 4)).tolist()
        replaced, chars, units = p.replaced.tolist(), p.chars.tolist(), p.units.tolist()
        j = 0
        for i, path in enumerate(paths):
            prob = p.problems[i]
            keep = not changed[i] and (chosen is None or chosen(path) is None)
            if prob is not None:
                row = (settings_key, stored_path(path), sizes[i], mtimes[i],
                       p.content_hash[i], "", None, None, 0, 0, 0, "", 0, b"", b"",
                       str(prob.kind), prob.message, None, None, None, None, None, now) \
                    if keep and prob.kind not in _NOT_KEPT else None
                final[path] = (row, changed[i])
                continue
            final[path] = ((settings_key, stored_path(path), sizes[i], mtimes[i],
                            p.content_hash[i], p.fmt[j], p.encoding[j], p.confidence[j],
                            replaced[j], chars[j], units[j], p.text_hash[j], simhash[j],
                            minhash[j * step:(j + 1) * step],
                            lines[line_at[j]:line_at[j + 1]], None, None, None, None, None,
                            p.skipped[j], winnow[winnow_at[j]:winnow_at[j + 1]], now)
                           if keep else None, changed[i])
            j += 1
    rows = {path: row for path, (row, _) in final.items() if row is not None}
    return rows, any(c for _, c in final.values())


class CacheWrite:
    """Rows stored by a thread of their own; the cache is the thread's until :meth:`join`
    returns (no thread's before it takes it: :meth:`FingerprintCache.let_go`).
    Not ``threaded``: stored at once in the calling thread (a connection the scan was given
    may be bound to its caller's thread: SQLite's ``check_same_thread``)."""

    def __init__(self, cache: FingerprintCache, rows: list[tuple], *,
                 threaded: bool = True) -> None:
        self.cache = cache
        self.threaded = threaded
        self.error: CacheError | None = None
        self._crash: BaseException | None = None
        self._rows = rows
        self._cpu: float | None = None  # the thread's CPU time, once it is done
        self._clock: int | None = None  # its CPU clock, which it reads itself (see _run)
        self._thread = threading.Thread(target=self._run, name="neardup-cache-write",
                                        daemon=True)
        if threaded:
            cache.let_go()
            self._thread.start()
        else:  # a connection that must stay in its thread: written here, at once
            t = time.thread_time()
            self._run()
            self._cpu = time.thread_time() - t

    def _run(self) -> None:
        try:
            # this thread's clock, asked here: another thread asking for it by the thread's id
            # once the thread has ended would read what is left of it (pthread_getcpuclockid)
            with contextlib.suppress(AttributeError, OSError):
                self._clock = time.pthread_getcpuclockid(threading.get_ident())
            self.cache.hand_over()
            self.cache.put_rows(self._rows)
        except CacheError as exc:
            self.error = exc
        except BaseException as exc:  # raised again in the scan's thread (see join)
            self._crash = exc
        finally:
            self._rows = []
            self._cpu = time.thread_time()

    @property
    def running(self) -> bool:
        """Whether the thread still writes (the cache is its own until it is done)."""
        return self._thread.is_alive()

    def cpu(self) -> float:
        """The writing thread's CPU time so far (where the system can tell it from another
        thread, else 0 until it is done): the scan counts it apart from the stages it
        overlaps."""
        if self._cpu is not None:
            return self._cpu
        clock = self._clock
        spent = 0.0
        if clock is not None:
            with contextlib.suppress(OSError):  # the thread has just ended: _cpu is set
                spent = time.clock_gettime(clock)
        # the thread may have ended meanwhile (its clock then another thread's, or none)
        return self._cpu if self._cpu is not None else spent

    def join(self) -> CacheError | None:
        """Wait for the write; the cache is the calling thread's again. Returns the write's
        error (the cache then stopped working); anything else it met is raised here. When
        the wait itself is interrupted (``KeyboardInterrupt``), the cache stays the writing
        thread's: wait again before it is used or closed."""
        if self._thread.ident is not None:
            self._thread.join()
        self.cache.hand_over()
        if self._crash is not None:
            raise self._crash
        return self.error
