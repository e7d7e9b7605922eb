"""Writing files a user asked for (reports, saved results) without ever leaving half of one, and
without ever replacing something that is not a plain file.

Shared by the reports and the results file, below both. :func:`open_output` is the one place
that decides how a path the user named (``-o``, "Save results as") is written:

* ``-`` is standard output;
* a device (``/dev/null``, a terminal), a FIFO, a socket or an inherited descriptor
  (``/dev/fd/N``, as the shell's ``>(wc -c)`` gives) is written as a stream: the existing node
  is opened for writing and never created, renamed over or removed, so ``-o /dev/null`` run as
  root cannot put a regular file in its place and a FIFO's reader gets the report;
* a symbolic link is followed: the report is written atomically to the file the link points
  to (a temporary file beside the target, renamed over the target), and the link stays a link;
  a target in a folder that cannot be written is refused with a plain message;
* a folder is refused;
* anything else (a regular file or a new name) is written atomically with :func:`atomic_open`.

Everything is raised as :class:`OSError` with a ``strerror`` that reads as a sentence, so each
caller turns it into its own one-line message.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Iterator

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:
    from typing import IO, Any

#: Paths that name one of this process's open descriptors: written in place, never resolved
#: (``/dev/fd/3`` may resolve to a regular file, but the user asked for the descriptor).
_DESCRIPTOR_DIRS = ("/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/")
_STD_NAMES = ("/dev/stdout", "/dev/stderr")


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is written as a stream (``-``, a device, a FIFO, a socket or an open
    descriptor) rather than as a file that can be replaced whole.

    A caller that writes files *beside* its output (the CSV's problems file) asks this first:
    "/dev/null.problems.csv" is not what anyone meant.
    """
    p = os.fspath(path)
    if p == "-" or p.startswith(_DESCRIPTOR_DIRS) or p in _STD_NAMES:
        return True
    try:
        st = os.stat(p)
    except OSError:
        return False
    return not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)


@contextlib.contextmanager
def open_output(path: str | os.PathLike[str], mode: str = "w", **kw: Any) -> Iterator[IO]:
    """Open the output the user named at ``path`` for writing, as the module docstring says.

    ``mode`` is "w" (text, ``kw`` as for :func:`open`) or "wb". A regular file is replaced only
    once the write is complete; a failure leaves the earlier file as it was.
    """
    p = os.fspath(path)
    if p == "-":
        yield from _stdout(mode)
        return
    if is_stream(p):
        yield from _stream(p, mode, **kw)
        return
    try:
        st = os.stat(p)
    except FileNotFoundError:
        st = None  # a new name, or a link to a name not made yet: created at the target
    except OSError as exc:
        raise OSError(exc.errno, _reason(exc)) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "it is a folder; give a file name")
    target = p
    if os.path.islink(p):
        target = os.path.realpath(p)
        folder = os.path.dirname(target)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, f"it is a link to {target}, and that folder "
                                                f"cannot be written")
    with atomic_open(target, mode, **kw) as f:
        yield f
    if st is not None:
        # the replacement keeps the permissions the user gave the earlier file
        with contextlib.suppress(OSError):
            os.chmod(target, stat.S_IMODE(st.st_mode))


def _stdout(mode: str) -> Iterator[IO]:
    out: IO = sys.stdout.buffer if "b" in mode else sys.stdout
    yield out
    out.flush()


def _stream(path: str, mode: str, **kw: Any) -> Iterator[IO]:
    # O_WRONLY without O_CREAT or O_TRUNC: the node must exist (a device that vanished since
    # the check is not replaced by a new regular file) and is written, never emptied first
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise OSError(exc.errno, _reason(exc)) from None
    f = open(fd, mode, closefd=True, **kw)  # noqa: SIM115 - closed below
    with f:
        yield f
        f.flush()


def _reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    return exc.strerror or str(exc)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", **kw: Any) -> Iterator[IO]:
    """Open a temporary file beside ``path`` and rename it over ``path`` once it is complete.

    A crash or a full disk never leaves half a report (or a damaged saved session) in place of
    a good one. OS errors are raised as they are; the temporary file is removed on any failure.
    Callers with a path a user named go through :func:`open_output`, which decides whether a
    rename is right for it at all.
    """
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    # random, as uuid4 is (without its import: 3 ms of a rescan that takes 100)
    tmp = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
    f = open(tmp, mode.replace("w", "x"), **kw)  # noqa: SIM115 - closed below, then renamed
    try:
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


__all__ = ["atomic_open", "is_stream", "open_output"]
