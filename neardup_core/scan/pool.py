"""How the scan starts its worker processes, starting them early, and the run's process pool.

A fresh interpreter needs seconds on a small machine before it can read a file: it imports
NumPy, chardet and lxml and loads the word segmenter's dictionary and the IDF table. On
systems that have it the scan therefore uses the ``forkserver`` start method with the worker
module preloaded and warmed in the server (:mod:`neardup_core.scan.preload`): every
worker is then a fork of a process that already holds all of it, and a second scan in the same
program starts its workers at once. Forking the program itself would be quicker still, but it
is not safe in a process that runs threads (the GUI does). Elsewhere (Windows) workers are
spawned and warm themselves up.

No process outlives the scanning program, however it ends (issue 18): a worker ignores Ctrl-C
(the scanning program decides what an interrupt means) and exits as soon as the program that
started it is gone, watched through multiprocessing's parent sentinel (a pipe, or a process
handle, that closes when that program dies, whatever killed it) and, on Linux, through
``PR_SET_PDEATHSIG`` on the fork server (see :func:`neardup_core.scan.worker.init_worker`). A
fork server started from the program's main thread is told to die with it too
(:mod:`neardup_core.scan.die_with_parent`); one started elsewhere still exits, as
multiprocessing makes it, once the program and every worker have closed its "alive" pipe, and
so does multiprocessing's resource tracker. A cancelled or broken pool's workers are killed,
not waited for: what they were reading is no longer wanted, and they only ever read files.

This module imports nothing heavy (the worker module only once a pool starts), so the app can
call :func:`prestart` while it opens, and the command line before it loads the scan
(:mod:`neardup_core.scan.early_start`).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
import time
import weakref
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TYPE_CHECKING

from neardup_core.pool_ends import kill_pool

if TYPE_CHECKING:
    from neardup_core.extract.limits import FileLimits
    from neardup_core.fingerprint.fingerprinter import FingerprintSettings

__all__ = ["INPROCESS_MAX_BYTES", "INPROCESS_MAX_FILES", "WorkerPool", "armed_pool", "prestart",
           "start_method", "stop_all"]

#: Below this many files (or bytes) worker processes cost more to start than they save (the
#: reading's rule, :meth:`neardup_core.scan.reading.Reading._inprocess`; here, where the command
#: line can ask it before it loads the scan: :mod:`neardup_core.scan.early_start`).
INPROCESS_MAX_FILES = 48
INPROCESS_MAX_BYTES = 4 * 1024 * 1024

_prestarted = False
#: Every pool of this program that may still have processes: what :func:`stop_all` ends.
_live: weakref.WeakSet[WorkerPool] = weakref.WeakSet()
#: Imported by a fork server started from the main thread: it dies with this program.
_DIE_WITH_PARENT = "neardup_core.scan.die_with_parent"


def start_method() -> str:
    """``forkserver`` where the platform has it (Linux, macOS), else ``spawn``."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def prestart() -> None:
    """Start the fork server now, preloaded and warmed, so that the first scan's workers start
    at once. Cheap to call (the loading happens in the server's own process) and idempotent;
    does nothing where there is no fork server, or when something else in this program already
    started one (its preload list can no longer be changed).

    Called from the main thread, the server is also told to die with this program: Linux's
    parent-death signal follows the *thread* that started a process, so a server started from
    a passing thread (which ends long before the program) must not ask for it."""
    global _prestarted
    if _prestarted or start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    preload = ["neardup_core.scan.preload"]
    if threading.current_thread() is threading.main_thread():
        preload.insert(0, _DIE_WITH_PARENT)
    ctx.set_forkserver_preload(preload)
    forkserver.ensure_running()
    _prestarted = True


def armed_pool(count: int, limits: FileLimits, method: str | None = None
               ) -> ProcessPoolExecutor:
    """A pool of ``count`` workers started as the scan starts its own (``method``, by default
    :func:`start_method`; the fork server started first), each armed with ``limits`` (its
    watchdog ends it past them: :func:`neardup_core.scan.worker.init_worker`): the scan's
    workers, the HTML page's comparing ones and the process that reads a PDF again
    (:mod:`neardup_core.scan.isolated`). Raises OSError (or RuntimeError) where no process
    can be started."""
    from neardup_core.scan.worker import init_worker

    method = method or start_method()
    if method == "forkserver":
        prestart()
    return ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context(method),
                               initializer=init_worker, initargs=(limits,))


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
        #: This process's CPU time (``time.process_time``) when the first pool's workers were
        #: forked, the fork server loaded: no worker reads before (the share benchmark's
        #: account of a scan that starts the server, :mod:`benchmarks.scale_share`).
        self.ready_cpu: float | None = None
        #: Where a worker's watchdog records the file it stopped (see take_stopped), made
        #: with the first pool and removed with this object (or by :meth:`stop`).
        self._records: str | None = None
        self._remove_records: weakref.finalize | None = None

    @property
    def started(self) -> bool:
        return self.pool is not None or self._starting is not None

    @property
    def warming(self) -> bool:
        """Still starting in the background (the fork server loading its modules)."""
        return self._starting is not None and self._starting.is_alive()

    def start(self) -> None:
        """Start the pool in the background: the first fork waits for the fork server to load,
        which is time the walk can use. The fork server itself is started here, in the calling
        thread (a quick spawn; its loading happens in its own process), so that one started
        from the main thread dies with the program (see :func:`prestart`)."""
        if not self.started:
            if self.method == "forkserver":
                with contextlib.suppress(OSError):  # _start meets it again and reads in-process
                    prestart()
            elif self.method == "fork":  # (tests): what a worker loads, loaded before it forks
                # A fork copies a module that another thread of this process is importing at
                # that moment as half-imported, with its lock held for good: the worker that
                # needs it (the encoding detector, while this process reads ahead) waits
                # forever. Loaded first, in this thread, nothing a worker needs is mid-import.
                import neardup_core.scan.preload  # noqa: F401
            self._starting = threading.Thread(target=self._start, name="neardup-pool-start",
                                              daemon=True)
            self._starting.start()

    def _start(self) -> None:
        # imported here, not at the top: the app and the command line import this module
        # before anything else of the scan, to start the fork server
        from neardup_core.extract.limits import limits_now, make_records, remove_records
        from neardup_core.scan.worker import warm_up

        try:
            if self._records is None:
                self._records = make_records()
                self._remove_records = weakref.finalize(self, remove_records, self._records)
            pool = armed_pool(self.count, limits_now(self._records), self.method)
            _live.add(self)
            self.pools += 1
            self._warm = [pool.submit(warm_up, self.settings) for _ in range(self.count)]
            self.pool = pool
            if self.ready_cpu is None:
                self.ready_cpu = time.process_time()
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

    def take_stopped(self) -> dict[str, str]:
        """The files whose workers' watchdogs ended them since the last call, with why
        (path -> the problem's message): files over the per-file time or memory limit."""
        if self._records is None:
            return {}
        from neardup_core.extract.limits import take_records

        return take_records(self._records)

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
        """Drop a broken or cancelled pool without waiting for it: its workers are killed, not
        left to finish a batch nobody will read (which kept a cancelled scan's program, and
        its workers, alive for as long as a batch takes)."""
        self._started()
        if self.pool is not None:
            kill_pool(self.pool)
        self.pool = None

    def stop(self) -> None:
        """Kill this pool's workers now, from any thread or a signal handler (the program is
        about to leave at once): no waiting, no lock. The folder of records goes too (no
        finalizer runs when a program leaves at once)."""
        pool = self.pool
        if pool is not None:
            kill_pool(pool, shutdown=False)
        if self._remove_records is not None:
            self._remove_records()  # (once: a finalizer called is dead)

    def close(self) -> None:
        """Let the workers go, without waiting for them to leave: an idle worker exits on
        the pool's sentinel, which its manager thread sends and then waits on, in the
        background (a scan waited a good part of a second here for processes that had nothing
        left to do). None is left behind: each still dies with this program (see
        :func:`neardup_core.scan.worker.init_worker`), and Python joins the manager thread at
        exit."""
        self._started()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = None


def stop_all() -> None:
    """Kill the workers of every pool this program started: for a program that leaves at once
    (a second Ctrl-C), so that none of them is left reading. Safe in a signal handler. Their
    folders of records go too, and multiprocessing's temporary folder (the fork server's
    socket), which its own clean-up at exit would have removed."""
    for wp in list(_live):
        wp.stop()
    if _live or _prestarted:  # (a program that started no process made no such folder)
        _remove_sockets_folder()


def _remove_sockets_folder() -> None:
    """multiprocessing's temporary folder of this program (``pymp-*``, made by mkdtemp; it
    holds the fork server's socket), which multiprocessing removes at a normal exit: the
    sockets in it, then the folder, only if that leaves it empty. Nothing else."""
    import multiprocessing.util
    import os
    import stat

    folder = multiprocessing.util.get_temp_dir()
    if not os.path.basename(folder).startswith("pymp-"):
        return
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode):
                os.unlink(entry.path)
        os.rmdir(folder)
