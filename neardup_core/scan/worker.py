"""What a scan's worker process runs: read a batch of files and fingerprint their texts.

Kept apart from :mod:`neardup_core.scan.session` so that a worker imports only reading and
fingerprinting (not the pair search, SciPy or the SQLite cache): a worker process that starts
in half the time is a scan that starts in half the time. The same function serves the local
scan's process pool, its in-process path for small folders and the Dask scan's tasks, so a file
gives the same text, fingerprint and problem message wherever it is read.

How workers are started (and started early) is :mod:`neardup_core.scan.pool`.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from dataclasses import dataclass

import numpy as np

from neardup_core.extract import Extracted, FileEntry, content_hash, decode_bytes, extract
from neardup_core.extract.limits import FileLimits, arm
from neardup_core.fingerprint.fingerprinter import (
    DocFingerprint,
    FingerprintSettings,
    shared_fingerprinter,
    with_identity,
)
from neardup_core.fingerprint.winnowing import exact_shingles
from neardup_core.models import Problem, ProblemKind, ScanOptions

__all__ = ["Outcome", "Prepared", "fingerprint_prepared", "init_worker", "lost",
           "over_limit", "prepare_batch", "process_batch", "shingle_sets", "warm_up"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a worker sends back for one file: metadata and fingerprint, or a problem."""

    path: str
    size: int
    mtime_ns: int
    extracted: tuple[str, str | None, float | None, int] | None  # format, encoding, conf, replaced
    fingerprint: DocFingerprint | None
    content_hash: str | None
    problem: Problem | None
    changed: bool = False  # size or mtime moved while it was read: do not cache it
    #: What the reader could not compare ("1 picture not compared"), or None: carried to
    #: Document.skipped so the app and the reports can say it.
    skipped: str | None = None

    def __reduce__(self) -> tuple:
        # A plain constructor call: a slotted dataclass's own pickling sets each field through
        # object.__setattr__, twice the cost, for every file a worker sends back.
        return (Outcome, (self.path, self.size, self.mtime_ns, self.extracted, self.fingerprint,
                          self.content_hash, self.problem, self.changed, self.skipped))


#: Text that makes a fingerprinter load everything it loads lazily (the segmenter's dictionary
#: for the Chinese words, the IDF table, the stop-word table for the English ones).
_WARM_TEXT = "预热分词词典与逆文档频率表。Warm up the segmenter and the tables of the workers."


#: Legacy-encoded samples that make the encoding detector load its models (chardet's, and the
#: tables of neardup's faster path for them), a few hundred milliseconds per process otherwise.
_WARM_BYTES = (
    "Caf\u00e9 cr\u00e8me, na\u00efve fa\u00e7ade: the r\u00e9sum\u00e9 was reviewed "
    "twice before the meeting.\n".encode("cp1252") * 4,
    "\u9884\u70ed\u7f16\u7801\u68c0\u6d4b\u6a21\u578b\uff0c\u4e2d\u6587\u6587\u672c"
    "\u3002\n".encode("gbk") * 4,
)


def warm_up(settings: FingerprintSettings | None = None) -> int:
    """Load what the first batch would otherwise wait for; returns the process id (so a caller
    can tell that distinct workers ran it). In the fork server this runs once, and every worker
    forked from it starts with it all loaded."""
    shared_fingerprinter(settings or FingerprintSettings()).fingerprint_many([_WARM_TEXT])
    for sample in _WARM_BYTES:
        decode_bytes(sample)
    return os.getpid()


def init_worker(limits: FileLimits | None = None) -> None:
    """Run first in every worker process: it must never outlive the program that started it,
    and it enforces the per-file ``limits`` on the PDFs it reads (:mod:`neardup_core.extract.
    limits`: past them it records why and ends, which the scan survives).

    A killed program (SIGTERM, SIGHUP, SIGKILL) left its workers blocked on a queue nobody would
    ever write to, and with them the fork server and the resource tracker, for good (about
    420 MB per interrupted scan). So a worker

    - ignores Ctrl-C: the terminal sends it to the whole process group, and the scanning
      program decides what it means (cancel, then kill the workers);
    - under a fork server, asks Linux for SIGKILL when the server goes (its parent; the server
      dies with the program when the program's main thread started it);
    - watches the program that started it through multiprocessing's parent sentinel, a pipe
      (a process handle on Windows) that closes when that program ends, however it ends, and
      leaves as soon as it does (within the time the interpreter takes to switch threads).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    arm(limits)
    parent = multiprocessing.parent_process()
    ppid = os.getppid()
    if parent is not None and parent.pid != ppid:  # a fork server's child: its only thread
        from neardup_core.scan.deathsig import die_with_parent

        die_with_parent(ppid)
    threading.Thread(target=_watch_parent, args=(parent, ppid), name="neardup-parent-watch",
                     daemon=True).start()


def _watch_parent(parent: multiprocessing.process.BaseProcess | None, ppid: int) -> None:
    """Leave this process when the program that started it is gone."""
    if parent is not None:
        parent.join()  # returns when the sentinel closes: that program has ended
    else:  # started some other way: the parent pid changes when the parent dies
        while os.getppid() == ppid:
            time.sleep(1.0)
    os._exit(1)


def _problem(e: FileEntry, problem: Problem) -> Outcome:
    return Outcome(e.path, e.size, e.mtime_ns, None, None, None, problem)


def _unexpected(e: FileEntry, exc: BaseException) -> Outcome:
    return _problem(e, Problem(e.path, ProblemKind.CORRUPT,
                               f"unexpected error while reading: {type(exc).__name__}: {exc}"))


#: Why a file is lost when its reading process died with no watchdog record (a crash).
STOPPED_WHILE_READING = "its worker process stopped unexpectedly while reading it"


def lost(e: FileEntry, message: str) -> Outcome:
    """A file no worker could finish (its process died, or none could start)."""
    return _problem(e, Problem(e.path, ProblemKind.LOST, message))


def over_limit(e: FileEntry, message: str) -> Outcome:
    """A file its worker's watchdog stopped (too slow or too large to read): ``message``
    says which limit."""
    return _problem(e, Problem(e.path, ProblemKind.TOO_LARGE, message))


def _finish_one(e: FileEntry, got: Extracted, fp: DocFingerprint, max_bytes: int) -> Outcome:
    if fp.units == 0:
        return _problem(e, Problem(e.path, ProblemKind.EMPTY,
                                   "no words or characters to compare"))
    chash = got.content_hash   # of the bytes extract read: the file is read once
    if chash is None:
        try:
            chash = content_hash(e.path, max_bytes)
        except OSError:
            chash = None
    # What the text does not show (comments, pictures, objects) decides identity too: two
    # files are "identical text" only if that matches as well (see Extracted.identity).
    fp = with_identity(fp, got.identity)
    meta = (got.format, got.encoding, got.confidence, got.replaced)
    skipped = got.skipped or None
    try:
        st = os.stat(e.path)
    except OSError:
        return _problem(e, Problem(e.path, ProblemKind.VANISHED,
                                   "the file disappeared while it was being read"))
    if (st.st_size, st.st_mtime_ns) != (e.size, e.mtime_ns):
        # Changed between the walk and the read: describe what was read, never cache it under
        # the walk's key (a later restore of the old bytes and mtime would get this text).
        return Outcome(e.path, st.st_size, st.st_mtime_ns, meta, fp, chash, None, changed=True,
                       skipped=skipped)
    return Outcome(e.path, e.size, e.mtime_ns, meta, fp, chash, None, skipped=skipped)


def shingle_sets(paths: list[str], options: ScanOptions, drop_lines: np.ndarray | None
                 ) -> list[np.ndarray | None]:
    """Each file's exact shingle set as the scan fingerprinted it (boilerplate ``drop_lines``
    left out), None for one that cannot be read now: what excerpt candidates are verified on
    (:mod:`neardup_core.scan.excerpts_pass`), read in the workers while they are up."""
    from neardup_core.scan.isolated import text_isolated  # (a worker reads in place)

    out: list[np.ndarray | None] = []
    for p in paths:
        try:
            # in the scan's own process (few candidates, or no workers) a PDF is read in a
            # process of its own, within the per-file limits, as in the workers
            text = text_isolated(p, options)
            out.append(None if text is None else exact_shingles(text, options.shingle,
                                                                drop_lines))
        except Exception:  # one file that cannot be read again drops its pairs, no more
            out.append(None)
    return out


def process_batch(batch: list[FileEntry], settings: FingerprintSettings, max_bytes: int,
                  drop_lines: np.ndarray | None = None,
                  encodings: dict[str, str] | None = None) -> list[Outcome]:
    """Extract a batch, then fingerprint its texts in one pass (several times faster than one
    document at a time for small files). One bad file never costs the others. ``encodings``:
    the codec the user chose for some of the files (path -> codec)."""
    return fingerprint_prepared(prepare_batch(batch, max_bytes, encodings), settings, max_bytes,
                                drop_lines)


@dataclass(frozen=True, slots=True)
class Prepared:
    """A file read and decoded, its fingerprint still to make. The scan's own process prepares
    the first batches this way while the workers start, and the workers fingerprint them (or
    the scan's process does, once it has nothing left to read and the workers are not up)."""

    entry: FileEntry
    got: Extracted


def prepare_batch(batch: list[FileEntry], max_bytes: int,
                  encodings: dict[str, str] | None = None) -> list[Outcome | Prepared]:
    """The reading half of :func:`process_batch`: a problem outcome or the extracted text for
    each file, in order."""
    out: list[Outcome | Prepared] = []
    for e in batch:
        try:
            got = extract(e.path, max_bytes=max_bytes,
                          encoding=encodings.get(e.path) if encodings else None)
        except Exception as exc:  # last resort: extract() maps every file problem itself
            out.append(_unexpected(e, exc))
            continue
        out.append(_problem(e, got) if isinstance(got, Problem) else Prepared(e, got))
    return out


def fingerprint_prepared(items: list[Outcome | Prepared], settings: FingerprintSettings,
                         max_bytes: int, drop_lines: np.ndarray | None = None) -> list[Outcome]:
    """The fingerprinting half of :func:`process_batch`; outcomes pass through in order."""
    out: list[Outcome | None] = [x if isinstance(x, Outcome) else None for x in items]
    todo = [(i, x) for i, x in enumerate(items) if isinstance(x, Prepared)]
    texts = [x.got.text for _, x in todo]
    fper = shared_fingerprinter(settings)
    try:
        fps: list[DocFingerprint | None] = list(fper.fingerprint_many(texts, drop_lines))
    except Exception:
        fps = []
        for t, (i, x) in zip(texts, todo, strict=True):
            try:
                fps.append(fper.fingerprint(t, drop_lines))
            except Exception as exc:
                fps.append(None)
                out[i] = _unexpected(x.entry, exc)
    del texts
    for (i, x), fp in zip(todo, fps, strict=True):
        if fp is not None:
            out[i] = _finish_one(x.entry, x.got, fp, max_bytes)
    return [o for o in out if o is not None]
