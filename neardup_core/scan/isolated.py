"""Reading a file again, outside a scan, within the scan's per-file limits.

A scan reads a PDF only in a worker process whose watchdog ends it past the per-file time and
memory limits (:mod:`neardup_core.extract.limits`): PDFium is C++, and a page it loops over or a
content stream that inflates to gigabytes never returns to Python. Files are read again later:
by the window's pair and excerpt views, by the HTML report's comparisons, and by ``neardup
compare``, whose files come straight from the command line. Read in the calling process, a
decompression bomb took that process's memory (a PDF of 1.5 MB: 2.6 GB in ``neardup
compare``), and a page PDFium never leaves would have held it for good; a file may also have
changed since the scan read it within the limits.

So a file that only a worker may read (:data:`~neardup_core.models.WORKER_ONLY_SUFFIXES`) is
read by :func:`read_isolated` in a process of its own, armed with the scan's limits and started
as the scan starts its workers (forked from the preloaded server where the platform has one):
past a limit it ends, and the reading is a problem in the scan's words ("needed more than 1 GB
of memory to read"). Any other file is read in the calling process, as before (its readers
bound themselves: zip bombs, entity attacks). A process that is armed already (a worker) reads
in place, its own watchdog guarding it. Where no process can be started at all, the file is
read in place, as the scan then reads it. :func:`stop_readers` ends every such reading at once
(a window closing does not wait for a PDF).
"""

from __future__ import annotations

import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from neardup_core.models import WORKER_ONLY_SUFFIXES, Problem, ProblemKind
from neardup_core.pool_ends import kill_pool

if TYPE_CHECKING:
    from neardup_core.extract import Extracted
    from neardup_core.models import ScanOptions

__all__ = ["GRACE_S", "read_isolated", "stop_readers", "text_isolated"]

#: Seconds past the time limit that the caller waits for a reading process before it is
#: killed (its own watchdog ends it at the limit: this is for one that cannot even do that).
GRACE_S = 10.0
_WORKER_ONLY = tuple(sorted(WORKER_ONLY_SUFFIXES))
#: The pools of the readings under way, for stop_readers.
_live: set[ProcessPoolExecutor] = set()
_lock = threading.Lock()


class _NoProcess(Exception):
    """No process could be started here (a sandbox, a platform without them)."""


def read_isolated(path: str, *, max_bytes: int, encoding: str | None = None
                  ) -> Extracted | Problem:
    """What :func:`neardup_core.extract.extract` gives for ``path``, read within the scan's
    per-file limits (see the module's docstring)."""
    from neardup_core.extract import extract
    from neardup_core.extract.limits import armed

    if not path.lower().endswith(_WORKER_ONLY) or armed() is not None:
        return extract(path, max_bytes=max_bytes, encoding=encoding)
    try:
        return _in_own_process(path, max_bytes, encoding)
    except _NoProcess:
        return extract(path, max_bytes=max_bytes, encoding=encoding)


def text_isolated(path: str, options: ScanOptions) -> str | None:
    """A document's text as a scan with ``options`` reads it, read by :func:`read_isolated`
    (None: it cannot be read now): :func:`neardup_core.fingerprint.boilerplate.read_text`
    within the limits."""
    got = read_isolated(path, max_bytes=options.max_size, encoding=options.encoding_of(path))
    return None if isinstance(got, Problem) else got.text


def _in_own_process(path: str, max_bytes: int, encoding: str | None) -> Extracted | Problem:
    import multiprocessing

    from neardup_core.extract import extract
    from neardup_core.extract.limits import limits_now, make_records, remove_records, take_records
    from neardup_core.scan.pool import prestart, start_method
    from neardup_core.scan.worker import init_worker

    pool: ProcessPoolExecutor | None = None
    try:
        records = make_records()
    except OSError as exc:  # no temporary folder to write in: no record of a stop either
        raise _NoProcess from exc
    try:
        limits = limits_now(records)
        try:
            method = start_method()
            if method == "forkserver":
                prestart()
            pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context(method),
                                       initializer=init_worker, initargs=(limits,))
            with _lock:
                _live.add(pool)
            future = pool.submit(extract, path, max_bytes=max_bytes, encoding=encoding)
        except (OSError, RuntimeError) as exc:
            raise _NoProcess from exc
        try:
            return future.result(timeout=limits.seconds + GRACE_S)
        except BrokenProcessPool:
            stopped = take_records(records).get(path)
            if stopped is not None:
                return Problem(path, ProblemKind.TOO_LARGE, stopped)
            return Problem(path, ProblemKind.LOST,
                           "its worker process stopped unexpectedly while reading it")
        except TimeoutError:
            return Problem(path, ProblemKind.TOO_LARGE, limits.message("time"))
    finally:
        if pool is not None:
            with _lock:
                _live.discard(pool)
            kill_pool(pool)  # done with, or past its limits: nothing of it is wanted
        remove_records(records)


def stop_readers() -> None:
    """End every reading under way (their callers get a problem at once)."""
    with _lock:
        pools = list(_live)
    for pool in pools:
        kill_pool(pool, shutdown=False)
