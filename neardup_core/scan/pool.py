"""How the scan starts its worker processes, starting them early, and the run's process pool.

A fresh interpreter needs seconds on a small machine before it can read a file: it imports
NumPy, chardet and lxml and loads the word segmenter's dictionary and the IDF table. On
systems that have it the scan therefore uses the ``forkserver`` start method with the worker
module preloaded and warmed in the server (:mod:`neardup_core.scan.preload`): every
worker is then a fork of a process that already holds all of it, and a second scan in the same
program starts its workers at once. Forking the program itself would be quicker still, but it
is not safe in a process that runs threads (the GUI does). Elsewhere (Windows) workers are
spawned and warm themselves up.

This module imports nothing heavy (the worker module only once a pool starts), so the app can
call :func:`prestart` while it opens.
"""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from neardup_core.fingerprint.fingerprinter import FingerprintSettings

__all__ = ["WorkerPool", "prestart", "start_method"]

_prestarted = False


def start_method() -> str:
    """``forkserver`` where the platform has it (Linux, macOS), else ``spawn``."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def prestart() -> None:
    """Start the fork server now, preloaded and warmed, so that the first scan's workers start
    at once. Cheap to call (the loading happens in the server's own process) and idempotent;
    does nothing where there is no fork server, or when something else in this program already
    started one (its preload list can no longer be changed)."""
    global _prestarted
    if _prestarted or start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["neardup_core.scan.preload"])
    forkserver.ensure_running()
    _prestarted = True


class WorkerPool:
    """A run's process pool: started once, as soon as the walk shows that workers will pay
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
        # imported here, not at the top: the app imports this module while it opens
        from neardup_core.scan.worker import warm_up

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
