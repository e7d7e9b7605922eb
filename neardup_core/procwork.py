"""Spreading a stage's NumPy work over the scan's worker processes, and keeping account of it.

The excerpt candidate search runs after the reading, when the workers are up and idle. On a few
threads of the main process (:mod:`neardup_core.threadwork`) it divided over at most
MAX_THREADS cores and stayed the largest serial part of a cold scan; as tasks of the worker
processes it divides over every core the scan reads with. :class:`ProcessWork` has the
interface of :class:`~neardup_core.threadwork.ThreadWork` that the search uses (``threads``,
``map``, ``share``, ``summary``), so the same plan runs on either and gives the same result.

The big input arrays are not pickled into every task: :meth:`ProcessWork.share` writes them
once into a private temporary folder, and a task gets :class:`SharedArrays`, a handle that
pickles as that folder's name and maps the files read-only in the worker (the pages are the
page cache's, shared by every worker that reads them). The folder goes when the block ends,
also on an error or a cancel. Files rather than ``multiprocessing.shared_memory``: a segment
is tracked by the resource tracker of every process that attaches to it (Python 3.11), which
unlinks it, or warns, when a worker ends; a file needs no tracker and can never outlive a
crash by more than a temporary folder.

Each task's CPU time (``time.thread_time`` in the worker) comes back with its result, kept per
phase as ThreadWork keeps its own: the share benchmark (:mod:`benchmarks.scale_share`) counts
it as worker time after the reading, which overlaps nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

import numpy as np

from neardup_core.errors import ScanCancelled
from neardup_core.pool_ends import LostWorkerWatch, kill_pool

__all__ = ["ProcessWork", "SharedArrays", "shared_root", "timed_call"]

#: How often a wait for the workers looks at the cancel flag (seconds).
_POLL = 0.1
#: What the temporary folders of shared arrays are called (tests look for leftovers).
FOLDER_PREFIX = "neardup-arrays-"
#: Where large temporary files belong on Linux and the BSDs when /tmp may be memory (tmpfs).
LARGE_TEMP = "/var/tmp"


def shared_root() -> str | None:
    """The folder the shared arrays' folders are made in (None: :mod:`tempfile`'s choice).

    The arrays take about 4 bytes a winnowed hash, some 400 MB at 1,000,000 files. Where /tmp
    is a tmpfs (Debian 13, Fedora, Arch by default) files there are held in memory, on top of
    the scan's own; /var/tmp is kept on disk for large temporary files (systemd's
    file-hierarchy). A TMPDIR the user set is theirs to choose and wins."""
    if os.environ.get("TMPDIR") or os.name != "posix" or sys.platform == "darwin":
        return None
    ok = os.path.isdir(LARGE_TEMP) and os.access(LARGE_TEMP, os.W_OK | os.X_OK)
    return LARGE_TEMP if ok else None

T = TypeVar("T")
R = TypeVar("R")


class SharedArrays(Mapping[str, np.ndarray]):
    """Named arrays in a folder, one ``.npy`` file each, mapped read-only when first asked for.
    Pickles as the folder and the names, not the data.

    A task may leave an array of its own in the folder for a later phase (:meth:`save`), so
    that a large answer goes from worker to worker without crossing the pool's pipes and this
    process; the later phase reads runs of the arrays of the phase before end to end as one
    file (:meth:`joined`)."""

    def __init__(self, folder: str, names: Sequence[str]) -> None:
        self.folder = folder
        self.names = tuple(names)
        self._open: dict[str, np.ndarray] = {}

    def __reduce__(self) -> tuple:
        return (SharedArrays, (self.folder, self.names))

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self.names:
            raise KeyError(name)
        got = self._open.get(name)
        if got is None:
            got = self._open[name] = self._load(name)
        return got

    def _load(self, name: str) -> np.ndarray:
        return np.load(os.path.join(self.folder, name + ".npy"), mmap_mode="r")

    def _check_new(self, name: str) -> None:
        if name in self.names or os.sep in name or name.startswith(".") or \
                (os.altsep and os.altsep in name):
            raise ValueError(f"not a name for a new array: {name!r}")

    def save(self, name: str, array: np.ndarray) -> None:
        """Leave ``array`` in the folder as ``name`` (a name no other task uses), for a later
        phase of the same block to read through :meth:`joined`."""
        self._check_new(name)
        np.save(os.path.join(self.folder, name + ".npy"), np.ascontiguousarray(array))

    def joined(self, name: str, parts: Sequence[tuple[str, int, int]]) -> SharedArrays:
        """These arrays and ``name``: the runs ``parts`` (an array's name, start and end) of
        1-D arrays in the folder (saved by tasks) end to end, written here once as one file.

        Every task of the next phase maps that file, so its pages are the page cache's, held
        once whatever the number of workers. Joined in each task instead, the copies were the
        excerpt stage's peak of memory: at 1,000,000 files and 16 workers about 55 MB a
        worker, 0.8 GB together (issue 22). Writing it costs this process a copy of the runs
        (7 MB at 40,000 files)."""
        self._check_new(name)
        files = {p: self._load(p) for p in dict.fromkeys(p for p, _, _ in parts)}
        kinds = {a.dtype for a in files.values()}
        if len(kinds) > 1 or any(a.ndim != 1 for a in files.values()):
            raise ValueError(f"runs of 1-D arrays of one type only, got {sorted(map(str, kinds))}")
        dtype = kinds.pop() if kinds else np.dtype(np.int64)
        total = sum(hi - lo for _, lo, hi in parts)
        path = os.path.join(self.folder, name + ".npy")
        with open(path, "xb") as f:
            np.lib.format.write_array_header_1_0(
                f, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False,
                    "shape": (total,)})
            for p, lo, hi in parts:
                f.write(np.ascontiguousarray(files[p][lo:hi]).data)
        return SharedArrays(self.folder, [*self.names, name])

    def discard(self, name: str) -> None:
        """The file of ``name`` removed once no task reads it any more (a mapping of it that
        a task holds stays valid): the folder holds less at once. Only an array the block
        was given, a task saved or :meth:`joined` wrote (a plain name) is ever removed, and
        only from the block's own folder."""
        if os.sep in name or name.startswith(".") or (os.altsep and os.altsep in name):
            raise ValueError(f"not an array of this folder: {name!r}")
        self._open.pop(name, None)
        with contextlib.suppress(OSError):
            os.remove(os.path.join(self.folder, name + ".npy"))

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def timed_call(fn: Callable[..., R], *args: object) -> tuple[R, float]:
    """``fn(*args)`` and the CPU time it took in this thread: what a worker sends back."""
    t = time.thread_time()
    out = fn(*args)
    return out, time.thread_time() - t


class ProcessWork:
    """Runs phases of independent items as tasks of ``pool``'s ``workers`` processes (``fn``
    and the items must pickle: a module-level function, or a ``functools.partial`` of one,
    with :class:`SharedArrays` for the big inputs), results in the order of the items;
    ``phases`` holds the CPU time in seconds of each phase's tasks. ``cancelled`` is asked
    while the tasks run: when it says so, the tasks not started are dropped and the map
    raises :class:`~neardup_core.errors.ScanCancelled`."""

    def __init__(self, pool: Executor, workers: int,
                 cancelled: Callable[[], bool] = lambda: False) -> None:
        self.pool = pool
        self.threads = max(1, workers)  # tasks at once, as ThreadWork calls it
        self.cancelled = cancelled
        self.phases: list[list[float]] = []

    def __enter__(self) -> ProcessWork:
        return self

    def __exit__(self, *exc: object) -> None:
        """Nothing to let go: the pool is the scan's."""

    @contextlib.contextmanager
    def share(self, arrays: Mapping[str, np.ndarray]) -> Iterator[SharedArrays]:
        """``arrays`` written once into a private temporary folder, for the tasks of this
        block; the folder is removed when the block ends, however it ends, with what the
        tasks saved in it (:meth:`SharedArrays.save`)."""
        folder = tempfile.mkdtemp(prefix=FOLDER_PREFIX, dir=shared_root())
        try:
            for name, a in arrays.items():
                np.save(os.path.join(folder, name + ".npy"), np.ascontiguousarray(a))
            yield SharedArrays(folder, list(arrays))
        finally:  # the arrays' files, then the folder (only if that leaves it empty)
            with contextlib.suppress(OSError):
                for entry in os.scandir(folder):
                    if entry.name.endswith(".npy") and entry.is_file(follow_symlinks=False):
                        with contextlib.suppress(OSError):
                            os.remove(entry.path)
            with contextlib.suppress(OSError):
                os.rmdir(folder)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``fn`` of each item, as one phase, each item a task (the callers cut their work in
        a few tasks a worker). A task that fails fails the map, once every task already
        running has ended (none is left reading a folder about to be removed)."""
        times: list[float] = []
        self.phases.append(times)
        todo = list(items)
        if not todo:
            return []
        futs: list[Future] = []
        try:
            for x in todo:
                futs.append(self.pool.submit(timed_call, fn, x))
            pending = set(futs)
            lost = LostWorkerWatch(self.pool)
            while pending:
                if self.cancelled():
                    raise ScanCancelled()
                done, pending = wait(pending, timeout=_POLL, return_when=FIRST_EXCEPTION)
                for f in done:
                    f.result()  # raises the task's error
                if lost.stuck(bool(done)):  # its futures would never end: nor would the wait
                    kill_pool(self.pool, shutdown=False)  # type: ignore[arg-type]
                    raise BrokenProcessPool("a worker process ended while sending its result "
                                            "back")
        except BaseException:
            for f in futs:
                f.cancel()
            wait(futs)
            raise
        got = [f.result() for f in futs]
        times.extend(t for _, t in got)
        return [r for r, _ in got]

    @property
    def cpu(self) -> float:
        """The CPU time of every task so far."""
        return sum(sum(p) for p in self.phases)

    def summary(self) -> dict:
        """For ``stats["cpu_workers_after"]``: the worker processes, the CPU time of every
        task, and each phase's (tasks, CPU time, longest task's CPU time)."""
        return {"workers": self.threads, "cpu_s": round(self.cpu, 4),
                "phases": [[len(p), round(sum(p), 4), round(max(p, default=0.0), 4)]
                           for p in self.phases]}
