"""How a process pool of ours ends when it cannot be waited for: killed, and seen to have lost
a worker.

Python's ProcessPoolExecutor waits for its workers; a cancelled scan must not (a batch can
take minutes), and a worker killed by someone else (the OOM killer) in the middle of sending
its result back leaves the pool waiting for the rest of that message for good. The scan's
pool, the pair search's tasks in those workers and the HTML page's comparing workers share
these two answers. Standard library only: the workers import this module too.
"""

from __future__ import annotations

import contextlib
import time
from concurrent.futures import Executor, ProcessPoolExecutor

#: How long a pool may bring nothing back with one of its workers gone before it is taken for
#: broken (:class:`LostWorkerWatch`): it notices any other death within milliseconds.
LOST_AFTER_S = 0.6


def kill_pool(pool: ProcessPoolExecutor, *, shutdown: bool = True) -> None:
    """Shut ``pool`` down without waiting and kill its processes (a scan's workers only read
    files, an HTML page's only compare them: their unfinished work is dropped with them)."""
    # ProcessPoolExecutor has no public way to reach its processes before Python 3.14's
    # kill_workers(); _processes (pid -> Process) has been there since 3.2, and
    # tests/core/test_scan_workers.py fails if a Python release takes it (or the manager
    # thread, or the result queue's writing end) away, rather than letting a cancelled scan
    # wait for its workers again.
    public_kill = getattr(pool, "kill_workers", None)
    if public_kill is not None:
        with contextlib.suppress(Exception):
            public_kill()
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    results = getattr(pool, "_result_queue", None)  # (shutdown lets go of it)
    if shutdown:
        pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):  # already gone, or being reaped
            process.kill()
    # A worker killed in the middle of sending a result (a batch bigger than the pipe's
    # buffer) leaves the manager thread reading the rest of it, and this process holds the
    # pipe's writing end too, which this process never writes to: closed, the read finds the
    # pipe's end once the workers are gone, and the thread ends as for any broken pool.
    # Left open, the read went on for good and Python's exit waited for that thread.
    writer = getattr(results, "_writer", None)
    if writer is not None:
        with contextlib.suppress(OSError):
            writer.close()
    if shutdown and manager is not None:
        # With its processes dead the pool's manager thread ends at once. Left running, it
        # raced Python's exit, which then wrote to the pipe the thread had just closed (a
        # traceback after every cancelled scan that ended quickly, Python 3.11).
        manager.join(timeout=10)


def worker_gone(pool: ProcessPoolExecutor) -> bool:
    """Whether one of ``pool``'s worker processes has ended. They end only with the pool or
    killed, and the pool notices a killed one at once, unless it was killed in the middle of
    sending a result back: the pool's manager thread then waits for the rest of the message
    for good, and the work it held never comes back (see :func:`kill_pool`). A caller that
    sees this for more than a moment kills the pool and does that work again.

    The processes' sentinels are looked at, not read: the manager thread reads their exit
    codes (``_processes``: see :func:`kill_pool`)."""
    from multiprocessing.connection import wait

    try:
        sentinels = [p.sentinel for p in list((getattr(pool, "_processes", None) or {})
                                              .values())]
        return bool(sentinels) and bool(wait(sentinels, timeout=0))
    except (OSError, ValueError):  # a process being reaped by the pool itself
        return False


class LostWorkerWatch:
    """Tells, asked after each wait for ``pool``'s futures, when the pool has brought nothing
    back for :data:`LOST_AFTER_S` with one of its workers gone (:func:`worker_gone`): the
    work that worker held will never come back, and the wait would go on for good. Never for
    an executor that is not a process pool."""

    def __init__(self, pool: Executor) -> None:
        self.pool = pool
        self._since: float | None = None  # when the wait was first found so

    def stuck(self, progressed: bool) -> bool:
        """``progressed``: the last wait brought something back (or there was nothing to
        wait for)."""
        pool = self.pool
        if progressed or not isinstance(pool, ProcessPoolExecutor) or not worker_gone(pool):
            self._since = None
            return False
        now = time.monotonic()
        if self._since is None:
            self._since = now
        return now - self._since >= LOST_AFTER_S


__all__ = ["LOST_AFTER_S", "LostWorkerWatch", "kill_pool", "worker_gone"]
