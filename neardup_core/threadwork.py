"""Spreading a main-process stage's NumPy work over a few threads, and keeping account of it.

The scan's worker processes read and fingerprint; what the main process does after them is the
serial share that caps how far more cores speed a scan up. (The excerpt candidate search, the
largest part of it, goes to the workers themselves when they are up:
:mod:`neardup_core.procwork`; threads are what it falls back on.)
Much of that is large NumPy calls (sorts, gathers, comparisons), which release the
GIL, so threads of the main process run them side by side without copying the arrays to other
processes. Threads are capped (MAX_THREADS): each holds its own temporaries, and the stages
bound their memory by the rows in flight.

Each batch of tasks is a *phase*, and the CPU time of each task (``time.thread_time``) is kept
per phase: the share benchmark (:mod:`benchmarks.scale_share`) needs to know which of the main
process's CPU time divides over cores, and by how much: a phase on ``k`` threads takes at least
its longest task and at least its total over ``k``.

:func:`side_by_side` is for the window's wait rather than a scan's throughput: two independent
parts of one regroup at once (the window waits for a slider move). It keeps no account: the
share benchmark counts its helper's CPU time in the scan's grouping as serial, as before.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

__all__ = ["MAX_THREADS", "ThreadWork", "default_threads", "side_by_side"]

#: Threads a stage may use at most: past four, the memory each holds in flight grows faster
#: than the few seconds left to save.
MAX_THREADS = 4
#: Tasks a phase is cut into per thread: enough that a thread with a long task does not leave
#: the others idle at the end, few enough that handing tasks over costs nothing.
_RUNS_PER_THREAD = 4

T = TypeVar("T")
R = TypeVar("R")

#: The helper threads :func:`side_by_side` hands its first call to (made at its first use),
#: and the permits to use one: a call that finds none free runs both of its calls itself.
_beside: ThreadPoolExecutor | None = None
_beside_free: threading.BoundedSemaphore | None = None
_beside_made = threading.Lock()


def _forget_helpers() -> None:
    """In a child forked from this process: it has neither the helper threads nor the permits
    (or the lock) they held then, and makes its own."""
    global _beside, _beside_free, _beside_made
    _beside, _beside_free, _beside_made = None, None, threading.Lock()


if hasattr(os, "register_at_fork"):  # (not on Windows, which does not fork)
    os.register_at_fork(after_in_child=_forget_helpers)


def default_threads() -> int:
    """The cores this process may run on, up to MAX_THREADS."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cores))


class ThreadWork:
    """Runs phases of independent items on up to ``threads`` threads (one: in the calling
    thread, with no pool), results in the order of the items; ``phases`` holds the CPU time
    in seconds of each phase's tasks (a task: a run of items, or one item in one thread)."""

    def __init__(self, threads: int | None = None) -> None:
        self.threads = max(1, threads if threads is not None else default_threads())
        self.phases: list[list[float]] = []
        self._pool: ThreadPoolExecutor | None = None

    def __enter__(self) -> ThreadWork:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    @contextlib.contextmanager
    def share(self, arrays: Mapping[str, object]) -> Iterator[Mapping[str, object]]:
        """The arrays tasks read, as they are: threads share this process's memory (the
        same call as :meth:`neardup_core.procwork.ProcessWork.share`, which writes them to
        files for other processes)."""
        yield arrays

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``fn`` of each item, as one phase. On threads the items go in runs of consecutive
        ones, _RUNS_PER_THREAD a thread (each run one task), so that many small items do not
        cost a hand-over each."""
        times: list[float] = []
        self.phases.append(times)

        def timed(run: Sequence[T]) -> tuple[list[R], float]:
            t = time.thread_time()
            out = [fn(x) for x in run]
            return out, time.thread_time() - t

        todo = list(items)
        if self.threads == 1 or len(todo) < 2:
            got = [timed([x]) for x in todo]
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="neardup-np")
            runs = min(len(todo), self.threads * _RUNS_PER_THREAD)
            cuts = [len(todo) * r // runs for r in range(runs + 1)]
            got = list(self._pool.map(timed, (todo[a:b] for a, b in itertools.pairwise(cuts))))
        times.extend(t for _, t in got)
        return [r for rs, _ in got for r in rs]

    @property
    def cpu(self) -> float:
        """The CPU time of every task so far."""
        return sum(sum(p) for p in self.phases)

    def summary(self) -> dict:
        """For ``stats["cpu_parallel"]``: the threads used and allowed at most, the CPU time
        of every task, and each phase's (tasks, CPU time, longest task's CPU time): what the
        phases would take on more threads (kept small: the stats go into saved results)."""
        return {"threads": self.threads, "max_threads": MAX_THREADS,
                "cpu_s": round(self.cpu, 4),
                "phases": [[len(p), round(sum(p), 4), round(max(p, default=0.0), 4)]
                           for p in self.phases]}


def _helpers() -> tuple[ThreadPoolExecutor, threading.BoundedSemaphore] | None:
    """The helper threads and their permits (one thread fewer than the cores this process
    may use, up to MAX_THREADS in all); None on one core."""
    global _beside, _beside_free
    with _beside_made:
        if _beside is None:
            helpers = default_threads() - 1
            if helpers < 1:
                return None
            _beside_free = threading.BoundedSemaphore(helpers)
            _beside = ThreadPoolExecutor(helpers, thread_name_prefix="neardup-beside")
        assert _beside_free is not None
        return _beside, _beside_free


def side_by_side(first: Callable[[], T], second: Callable[[], R], *, parallel: bool = True
                 ) -> tuple[T, R]:
    """``(first(), second())``, the first computed on a helper thread while this thread
    computes the second, when ``parallel`` and this process may run on two cores or more.

    For two independent parts of one regroup (at 10^6 documents each a chain of NumPy calls
    of 10-50 ms that release the GIL): the window waits for the longer of the two rather than
    their sum. Give ``first`` the shorter: ``second`` may hand a part of its own to a helper
    as soon as ``first`` is done. A helper is taken only while it computes; when none is free
    (two regroups at once, or more parts than helpers) the calls run one after the other
    here, so nothing ever waits for a helper to come free. Whatever either call raises is
    raised here once both are done (a helper is never left running on arrays its caller has
    given up)."""
    helpers = _helpers() if parallel else None
    if helpers is None or not helpers[1].acquire(blocking=False):
        return first(), second()
    pool, free = helpers

    def helped() -> T:
        try:
            return first()
        finally:
            free.release()  # before the result is out: a call right after finds it free

    try:
        future = pool.submit(helped)
    except RuntimeError:  # the interpreter is shutting down: no new threads
        free.release()
        return first(), second()
    try:
        got = second()
    finally:
        wait([future])
    return future.result(), got
