"""Background work for the window: the scan, and reading two files for the diff view.

Each job is a QObject whose ``run`` is called in a QThread of its own (started by the thread,
directly) with ``started / progress / finished / errored`` signals. The object itself stays on
the main thread, where its receivers live, so every connection to a widget is queued: widgets
are only ever touched on the main thread, and nothing polls.

It is never moved to its thread and back (the Qt worker-object pattern, as superqt's
``new_worker_qthread``, which this module followed until 2026-11-29). PySide holds the GIL
through ``moveToThread``, which takes Qt's locks; the main thread, deleting a widget at that
moment, held one of those locks while it waited for the GIL to ask Python about an override.
Both waited for good (a test's window, once in nine full runs).

A worker's signals are received by QObjects' methods or by functions, never by a method of a
plain Python object: PySide 6.11 delivers a queued call that is still pending when such an
object is disconnected and freed to the freed object (a crash, or another object's method
called; seen with a pytest-qt blocker waiting for ``progress``). QObjects' methods and
functions are kept safe by PySide.

``run()`` never lets an exception escape; it emits ``errored`` instead, because an exception in
a pool thread would otherwise vanish.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from neardup_core.models import Problem, ScanOptions
from neardup_core.progress import CancelToken, ProgressEvent, ProgressSink, Throttled
from neardup_core.result import ScanResult

log = logging.getLogger(__name__)


class _Session(Protocol):
    def run(self, paths: Sequence[str], progress: ProgressSink = ...,
            cancel: CancelToken | None = ...) -> ScanResult: ...


def _default_session(options: ScanOptions) -> _Session:
    from neardup_core import ScanSession  # loads the scan pipeline only when a scan starts

    return ScanSession(options)


class Worker(QObject):
    """A job run by :class:`WorkerHost` in its own QThread.

    Subclasses implement :meth:`work`. The object lives on the main thread (Python drops it
    there); only :meth:`run` executes in the job's thread, and its signals, emitted there, reach
    the main thread's receivers queued. Connections to widgets are queued.
    """

    started = Signal()
    progress = Signal(object)   # ProgressEvent
    finished = Signal(object)   # the job's value (ScanResult for a scan)
    errored = Signal(object)    # the exception

    def work(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    @Slot()
    def run(self) -> None:
        self.started.emit()
        try:
            value = self.work()
        except BaseException as exc:  # anything, or the failure vanishes with the thread
            log.info("%s failed: %r", type(self).__name__, exc)
            self.errored.emit(exc)
            return
        self.finished.emit(value)


class ScanWorker(Worker):
    """Runs one ScanSession off the main thread. ``cancel()`` may be called from any thread."""

    def __init__(self, options: ScanOptions, paths: Sequence[str], *,
                 session_factory: Callable[[ScanOptions], _Session] = _default_session,
                 rate: float = 10.0,
                 finish: Callable[[ScanResult], ScanResult] | None = None) -> None:
        super().__init__()
        #: applied to the result here, before it is prepared (the remembered choices)
        self.finish = finish
        self.options = options
        self.paths = list(paths)
        self.token = CancelToken()
        self._factory = session_factory
        self._rate = rate

    def cancel(self) -> None:
        self.token.cancel()

    @property
    def cancelled(self) -> bool:
        return self.token.cancelled

    def _emit_progress(self, event: ProgressEvent) -> None:
        self.progress.emit(event)

    def work(self) -> ScanResult:
        session = self._factory(self.options)
        result = session.run(self.paths, progress=Throttled(self._emit_progress, self._rate),
                             cancel=self.token)
        if isinstance(result, ScanResult):
            if self.finish is not None:  # (a regroup: at 200,000 files, tenths of a second)
                result = self.finish(result)
            result.prepare_regroup()  # here, not on the main thread at the first slider move
        return result


@dataclass(frozen=True, slots=True)
class LoadedText:
    path: str
    text: str
    problem: str | None = None  # why the text could not be read (the text is then empty)


@dataclass(frozen=True, slots=True)
class LoadedPair:
    request: int  # lets the receiver drop answers to questions it no longer asks
    left: LoadedText
    right: LoadedText
    diff: Any = None  # neardup_core.diff.DiffResult, computed here too: long texts take a while


def _default_extract(path: str, *, max_bytes: int, encoding: str | None = None) -> Any:
    """A file read again as the scan read it, a PDF within the scan's per-file limits, in a
    process of its own: a file may have changed since, and a decompression bomb read here
    would take the window's memory."""
    from neardup_core.scan.isolated import read_isolated

    return read_isolated(path, max_bytes=max_bytes, encoding=encoding)


Extractor = Callable[..., Any]


def load_text(path: str, extract: Extractor = _default_extract, *,
              max_bytes: int = ScanOptions.max_size, encoding: str | None = None) -> LoadedText:
    """Read one file the way the scan did; a Problem becomes a message, not an exception."""
    try:
        got = extract(path, max_bytes=max_bytes, encoding=encoding)
    except Exception as exc:
        return LoadedText(path, "", f"{type(exc).__name__}: {exc}")
    if isinstance(got, Problem):
        return LoadedText(path, "", got.message)
    return LoadedText(path, got.text)


@dataclass(frozen=True, slots=True)
class Source:
    """A file to read for the diff, with the encoding the scan decoded it with."""

    path: str
    encoding: str | None = None


def _default_diff(left: str, right: str) -> Any:
    from neardup_core.diff import aligned_diff

    return aligned_diff(left, right)


class PairLoader(Worker):
    """Reads two files and diffs them off the main thread (a big .docx takes seconds)."""

    def __init__(self, request: int, left: Source, right: Source, *,
                 max_bytes: int = ScanOptions.max_size,
                 extract: Extractor = _default_extract,
                 differ: Callable[[str, str], Any] | None = _default_diff) -> None:
        super().__init__()
        self.request = request
        self.left, self.right = left, right
        self._max_bytes = max_bytes
        self._extract = extract
        self._differ = differ

    def work(self) -> LoadedPair:
        left, right = (load_text(src.path, self._extract, max_bytes=self._max_bytes,
                                 encoding=src.encoding) for src in (self.left, self.right))
        diff = self._differ(left.text, right.text) if self._differ is not None else None
        return LoadedPair(self.request, left, right, diff)


class WorkerHost(QObject):
    """Starts workers in their own threads and keeps both alive until the thread has ended.

    Python would otherwise collect a worker or a QThread that Qt still uses. Each worker is let
    go when its own thread's end reaches this host, which is after its answer reached the
    window's thread (both are queued there, in that order). Letting go of every ended worker
    whenever any thread ended lost answers: a handler given as a lambda goes with its worker,
    and answers still queued for it were dropped (an excerpt pair never shown; an opened
    results file could leave the window busy for good).
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._running: dict[QThread, Worker] = {}

    def start(self, worker: Worker) -> QThread:
        thread = QThread()
        # run() in the new thread: ``started`` is emitted there, and a direct connection calls
        # the slot where the signal is emitted (the worker itself stays on this thread)
        thread.started.connect(worker.run, Qt.ConnectionType.DirectConnection)
        worker.finished.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        worker.errored.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        thread.finished.connect(self._reap)
        self._running[thread] = worker
        thread.start()
        return thread

    @Slot()
    def _reap(self) -> None:
        thread = self.sender()
        if isinstance(thread, QThread) and thread in self._running:
            thread.wait()
            del self._running[thread]

    def _reap_all(self) -> None:
        for thread in [t for t in self._running if t.isFinished()]:
            thread.wait()
            del self._running[thread]

    def busy(self) -> bool:
        return any(not t.isFinished() for t in self._running)

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until every thread has ended (used when the window closes)."""
        ok = all(t.wait(msecs) for t in list(self._running))
        self._reap_all()  # (answers still queued are not wanted by a closing window)
        return ok


class CallWorker(Worker):
    """Runs one call off the main thread: file actions, exports, saving and loading results.

    These touch the disk once per file and can take seconds on slow drives or big results;
    users report duplicate finders that freeze while deleting.
    """

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self._fn, self._args, self._kwargs = fn, args, kwargs

    def work(self) -> Any:
        return self._fn(*self._args, **self._kwargs)
