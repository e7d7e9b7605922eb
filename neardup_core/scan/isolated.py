"""Reading a file again, outside a scan, within the scan's per-file limits.

A scan reads a PDF only in a worker process whose watchdog ends it past the per-file time and
memory limits (:mod:`neardup_core.extract.limits`): PDFium is C++, and a page it loops over or a
content stream that inflates to gigabytes never returns to Python. Files are read again later:
by the window's pair and excerpt views, by the HTML report's comparisons, and by ``neardup
compare``, whose files come straight from the command line. Read in the calling process, a
decompression bomb took that process's memory (a PDF of 1.5 MB: 2.6 GB in ``neardup
compare``), and a page PDFium never leaves would have held it for good; a file may also have
changed since the scan read it within the limits.

So a file that only a worker may read (:func:`~neardup_core.models.worker_only`) is
read by :func:`read_isolated` in a reading process of this program's, armed with the scan's
limits and started as the scan starts its workers (forked from the preloaded server where the
platform has one), then kept for the next file: a process a file cost 57 ms, and a report's
diffs read dozens. Past a limit it ends, and the reading is a problem in the scan's words
("needed more than 1 GB of memory to read"); the next file gets a new process. A file whose
reading ended because another one, read at the same time, passed a limit is read again. Any
other file is read in the calling process, as before (its readers bound themselves: zip bombs,
entity attacks). A process that is armed already (a worker) reads in place, its own watchdog
guarding it. Where no process can be started at all, the file is read in place, as the scan
then reads it. :func:`stop_readers` ends the reading process (a window closing does not wait
for a PDF).
"""

from __future__ import annotations

import threading
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from neardup_core.models import Problem, ProblemKind, worker_only
from neardup_core.pool_ends import kill_pool

if TYPE_CHECKING:
    from neardup_core.extract import Extracted
    from neardup_core.models import ScanOptions

__all__ = ["GRACE_S", "read_isolated", "stop_readers", "text_and_why", "text_isolated"]

#: Seconds past the time limit that the caller waits for the reading process before it is
#: killed (its own watchdog ends it at the limit: this is for one that cannot even do that).
GRACE_S = 10.0
_lock = threading.Lock()


class _NoProcess(Exception):
    """No process could be started here (a sandbox, a platform without them)."""


class _Reader:
    """The reading process (a pool of one) and the folder its watchdog records a stop in."""

    def __init__(self) -> None:
        from neardup_core.extract.limits import limits_now, make_records, remove_records
        from neardup_core.scan.pool import armed_pool

        try:
            self.records = make_records()
        except OSError as exc:  # no temporary folder to write in: no record of a stop either
            raise _NoProcess from exc
        self.limits = limits_now(self.records)
        #: files the watchdog stopped, by path, as the records said (read once, kept here
        #: for whichever caller asks: two may have been reading)
        self.stopped: dict[str, str] = {}
        self.stopping = False  # ended by stop_readers: what it held is not read again
        try:
            self.pool = armed_pool(1, self.limits)
        except (OSError, RuntimeError) as exc:
            remove_records(self.records)
            raise _NoProcess from exc

    def end(self) -> None:
        from neardup_core.extract.limits import remove_records

        kill_pool(self.pool)
        remove_records(self.records)


_reader: _Reader | None = None


def _current() -> _Reader:
    """The reading process, started when there is none, the last one ended, or the limits
    are no longer those it enforces (the module's constants, as a scan reads them when it
    starts its workers)."""
    from neardup_core.extract.limits import limits_now

    global _reader
    old = None
    with _lock:
        if _reader is not None and limits_now(_reader.records) != _reader.limits:
            old, _reader = _reader, None
        if _reader is None:
            _reader = _Reader()
        reader = _reader
    if old is not None:
        old.end()
    return reader


def _drop(reader: _Reader) -> None:
    """Let go of ``reader`` (ended, past a limit or stopped): the next file gets a new one."""
    global _reader
    with _lock:
        if _reader is reader:
            _reader = None
    reader.end()


def read_isolated(path: str, *, max_bytes: int, encoding: str | None = None
                  ) -> Extracted | Problem:
    """What :func:`neardup_core.extract.extract` gives for ``path``, read within the scan's
    per-file limits (see the module's docstring)."""
    from neardup_core.extract import extract
    from neardup_core.extract.limits import armed

    if not worker_only(path) or armed() is not None:
        return extract(path, max_bytes=max_bytes, encoding=encoding)
    try:
        return _in_reader(path, max_bytes, encoding)
    except _NoProcess:
        return extract(path, max_bytes=max_bytes, encoding=encoding)


def text_and_why(path: str, options: ScanOptions) -> tuple[str | None, str | None]:
    """A document's text as a scan with ``options`` reads it, read by :func:`read_isolated`,
    or None and why it cannot be read now (the problem's message)."""
    got = read_isolated(path, max_bytes=options.max_size, encoding=options.encoding_of(path))
    return (None, got.message) if isinstance(got, Problem) else (got.text, None)


def text_isolated(path: str, options: ScanOptions) -> str | None:
    """:func:`text_and_why`'s text (None: it cannot be read now)."""
    return text_and_why(path, options)[0]


def _in_reader(path: str, max_bytes: int, encoding: str | None) -> Extracted | Problem:
    from neardup_core.extract import extract
    from neardup_core.extract.limits import take_records
    from neardup_core.scan.worker import STOPPED_WHILE_READING

    for attempt in (1, 2):
        reader = _current()
        try:
            future = reader.pool.submit(extract, path, max_bytes=max_bytes, encoding=encoding)
        except RuntimeError:  # ended meanwhile (stopped, or broken by another file)
            _drop(reader)
            if reader.stopping:
                break
            continue
        try:
            return future.result(timeout=reader.limits.seconds + GRACE_S)
        except BrokenProcessPool:
            with _lock:
                reader.stopped.update(take_records(reader.records))
                stopped = reader.stopped.get(path)
            _drop(reader)
            if stopped is not None:
                return Problem(path, ProblemKind.TOO_LARGE, stopped)
            if attempt == 2 or reader.stopping:
                break
            # another file read at the same time may have ended it: once more, alone
        except TimeoutError:
            _drop(reader)
            return Problem(path, ProblemKind.TOO_LARGE, reader.limits.message("time"))
    return Problem(path, ProblemKind.LOST, STOPPED_WHILE_READING)


def stop_readers() -> None:
    """End the reading process now (a reading under way gets a problem at once)."""
    with _lock:
        reader = _reader
    if reader is not None:
        reader.stopping = True
        _drop(reader)
