"""A per-file limit on time and memory for readers that run native code on hostile input.

PDFium is C++: a page that makes it loop, or a content stream that inflates to gigabytes (a
decompression bomb), never returns to Python, so a time budget checked between pages cannot stop
it and nothing in Python bounds the memory it takes. Such a file is read only in a worker
process (:mod:`neardup_core.scan.reading`), which the scan survives losing. So while a worker
reads one, a watchdog thread (:func:`guarded`; one per worker, asleep between files) looks at
the time spent and at the process's resident memory every :data:`INTERVAL` seconds (Linux:
``/proc/self/statm``; elsewhere psutil when it is installed, else time only). Past
:data:`SECONDS`, or past :data:`MEMORY` bytes above what the worker held before the file, it
writes the file's path and the reason to a record in the scan's folder of records and ends the
worker at once (``os._exit``: the only way to stop a thread inside C code). The scan, seeing the
worker gone, finds the record (:func:`take_records`) and lists the file as a problem that says
why, instead of "its worker stopped unexpectedly", and reads the worker's other files again
without suspecting them.

Only a process that was armed (:func:`arm`, by the worker's initializer) ever ends itself:
anywhere else (the scan's own process, a Dask task, a library call) :func:`guarded` does
nothing, so a slow PDF can never take the app down with it.

``resource.setrlimit(RLIMIT_AS)`` is not used: a worker's virtual size is twice its resident
size and grows with every thread's malloc arena (measured 302 MB virtual for 154 MB resident
once warmed), so an address-space cap either sits far above the limit it is meant to enforce or
fails ordinary allocations of NumPy and the segmenter; and PDFium aborts the process on a failed
allocation (measured: the 256 MB stream bomb under a cap 128 MB above the warm worker ends it
with SIGABRT), which would cost the file its reason. The watchdog's interval bounds how far past
the limit a bomb gets (the 256 MB stream of the robustness suite takes 0.8 s to inflate: about
16 MB per interval).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from neardup_core.extract.common import human_size

__all__ = ["INTERVAL", "MEMORY", "SECONDS", "FileLimits", "arm", "armed", "guarded",
           "limits_now", "make_records", "remove_records", "resident_bytes", "scratch_folder",
           "take_records"]

#: How the folder of records is named (in the system's temporary folder).
_PREFIX = "neardup-stopped-"
#: How a reader's scratch folder is named (:func:`scratch_folder`).
_SCRATCH_PREFIX = "neardup-reading-"

#: Seconds one file may take to read in a worker. Read when a scan starts its workers (tests
#: lower it; set it before the scan).
SECONDS = 60.0
#: Bytes of resident memory one file may add to its worker (over what the worker held before).
MEMORY = 1 << 30
#: How often the watchdog looks, in seconds.
INTERVAL = 0.05
#: The exit status of a worker its watchdog ended (for whoever looks at it in a debugger).
EXIT_STATUS = 75


@dataclass(frozen=True, slots=True)
class FileLimits:
    """What a worker's watchdog enforces, and where it records a file it stopped."""

    records: str  # a folder the scan reads when a worker dies
    seconds: float = SECONDS
    memory: int = MEMORY
    interval: float = INTERVAL

    def message(self, reason: str) -> str:
        """The problem a user reads for a file stopped for ``reason`` ("time" or "memory")."""
        if reason == "time":
            return f"took longer than {self.seconds:g} s to read: not compared"
        return f"needed more than {human_size(self.memory)} of memory to read: not compared"


_armed: FileLimits | None = None


def limits_now(records: str) -> FileLimits:
    """The limits as this module's constants say now (read when a scan starts its workers)."""
    return FileLimits(records, SECONDS, MEMORY, INTERVAL)


def arm(limits: FileLimits | None) -> None:
    """Let :func:`guarded` end this process past ``limits`` (None: never). Only a worker
    process, whose death the scan survives, may be armed."""
    global _armed
    _armed = limits


def armed() -> FileLimits | None:
    """The limits this process enforces, or None (it never ends itself)."""
    return _armed


def resident_bytes() -> int | None:
    """This process's resident memory in bytes, or None where it cannot be known cheaply."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil  # optional: macOS and Windows
    except ImportError:
        return None
    try:
        return int(psutil.Process().memory_info().rss)
    except Exception:  # psutil's errors, a sandbox that hides the process
        return None


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True, slots=True)
class _Reading:
    """The file being read under the watchdog, its limits, its deadline and the memory the
    process held before it."""

    path: str
    limits: FileLimits
    deadline: float
    before: int | None


#: What the watchdog watches now (None: nothing), and the event that wakes it.
_current: _Reading | None = None
_busy = threading.Event()
_watchdog: threading.Thread | None = None


@contextlib.contextmanager
def guarded(path: str) -> Iterator[None]:
    """Read ``path`` within the armed limits: past them this process records why and ends.
    Does nothing in a process that is not armed.

    One watchdog thread per process, started with the first file and asleep between files:
    starting a thread per file cost 0.2 ms, a few per cent of a small PDF's reading."""
    global _current, _watchdog
    limits = _armed
    if limits is None:
        yield
        return
    if _watchdog is None or not _watchdog.is_alive():
        _watchdog = threading.Thread(target=_watch, name="neardup-watchdog", daemon=True)
        _watchdog.start()
    _current = _Reading(path, limits, time.monotonic() + limits.seconds, resident_bytes())
    _busy.set()
    try:
        yield
    finally:
        _busy.clear()
        _current = None


def _watch() -> None:
    while True:
        _busy.wait()
        reading = _current
        if reading is None:
            continue
        time.sleep(reading.limits.interval)
        reading = _current
        if reading is None:
            continue
        if time.monotonic() > reading.deadline:
            _stop(reading, "time")
        if reading.before is not None:
            now = resident_bytes()
            if now is not None and now - reading.before > reading.limits.memory:
                _stop(reading, "memory")


def _stop(reading: _Reading, reason: str) -> None:
    """Record why the file ``reading`` was not read, remove its reader's scratch folders, then
    end this process at once (unless it was finished in the meantime)."""
    if _current is not reading:
        return
    for folder in list(_scratch):  # os._exit runs no finally: the reader cannot remove them
        _empty_scratch(folder)
    path, limits = reading.path, reading.limits
    with contextlib.suppress(Exception):  # a record that cannot be written: a plain lost file
        record = os.path.join(limits.records, f"{os.getpid()}.json")
        partial = record + ".part"
        with open(partial, "w", encoding="utf-8") as f:
            json.dump({"path": path, "reason": reason, "message": limits.message(reason)}, f)
        os.replace(partial, record)  # whole or absent: the scan never reads half a record
    os._exit(EXIT_STATUS)


#: The scratch folders of the files being read in this process (see :func:`scratch_folder`).
_scratch: set[str] = set()


@contextlib.contextmanager
def scratch_folder() -> Iterator[str]:
    """A private folder (0700, in the temporary folder, named after this process) for a reader
    that must write files to read one (the Word 97-2003 converter writes a .docx). Removed
    after the file, by the watchdog before it ends this process past a limit, and, when this
    process was killed, by the next scan's :func:`make_records` once the process is gone."""
    folder = tempfile.mkdtemp(prefix=f"{_SCRATCH_PREFIX}{os.getpid()}-")
    _scratch.add(folder)
    try:
        yield folder
    finally:
        _scratch.discard(folder)
        _empty_scratch(folder)


def make_records() -> str:
    """A new, empty folder of records for one scan's workers (in the temporary folder), named
    after this process. Folders left by programs that were killed (and so could not remove
    theirs: records, and the scratch folders of readers) are removed first, when their program
    is gone."""
    with contextlib.suppress(OSError):
        for name in os.listdir(tempfile.gettempdir()):
            for prefix, remove in ((_PREFIX, remove_records), (_SCRATCH_PREFIX, _remove_scratch)):
                owner = name[len(prefix):].split("-", 1)[0]
                if name.startswith(prefix) and owner.isdigit() and not _alive(int(owner)):
                    remove(os.path.join(tempfile.gettempdir(), name))
    return tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-")


def _remove_scratch(folder: str) -> None:
    """Remove a scratch folder a killed process left: only a folder of this user's (as
    :func:`scratch_folder` made it), never through a link."""
    with contextlib.suppress(OSError):
        st = os.lstat(folder)
        mine = st.st_uid == os.getuid() if hasattr(os, "getuid") else True  # (Windows)
        if stat.S_ISDIR(st.st_mode) and mine:
            _empty_scratch(folder)


def _empty_scratch(folder: str) -> None:
    """Remove a scratch folder: the regular files and links directly in it (what a reader wrote
    there; a link itself, never its target; never a folder's contents), then the folder, if
    that empties it."""
    with contextlib.suppress(OSError):
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_symlink() or entry.is_file(follow_symlinks=False):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
        os.rmdir(folder)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (when in doubt, yes: its folder is then left alone)."""
    if pid == os.getpid() or sys.platform == "win32":  # os.kill there ends the process
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # another user's process
        return True
    return True


def remove_records(records: str) -> None:
    """Remove a folder :func:`make_records` made: its records (ours, by name) and then the
    folder, only if that leaves it empty. Never anything else."""
    if not os.path.basename(records).startswith(_PREFIX):
        return
    take_records(records)
    with contextlib.suppress(OSError):  # not empty (not ours to empty), or already gone
        os.rmdir(records)


def take_records(records: str) -> dict[str, str]:
    """The files watchdogs stopped since the last call (path -> the problem's message); the
    records are removed as they are read."""
    out: dict[str, str] = {}
    try:
        names = os.listdir(records)
    except OSError:
        return out
    for name in sorted(names):
        if not name.endswith(".json") or not name[:-5].isdigit():  # <pid>.json: ours only
            continue
        full = os.path.join(records, name)
        try:
            with open(full, encoding="utf-8") as f:
                got = json.load(f)
            out[str(got["path"])] = str(got["message"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
        with contextlib.suppress(OSError):
            os.remove(full)
    return out
