"""What the readers raise when one file cannot give its text, and how sizes are worded.

::

    ExtractError
    ├── TooLarge          over a size limit (file, zip part, whole archive, compression ratio)
    ├── BinaryContent     named like text but holds binary data (raised by encoding.py)
    ├── CorruptDocx       not a Word document (or PDF, .odt, ...), or a damaged one
    ├── EncryptedDocx     password-protected (any document format)
    ├── UnsupportedDocx   a Word file of a kind not read (legacy .doc, unreadable Strict OOXML)
    ├── EmptyDocument     a document with no text to compare (a scanned PDF)
    └── NotRegularFile    a pipe, socket or device where a file was expected (also an OSError)

Each carries one sentence for the user in ``message``; :func:`neardup_core.extract.extract`
turns them into :class:`~neardup_core.models.Problem` values, so they never end a scan.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:
    from typing import Any, BinaryIO


class ExtractError(Exception):
    """One file could not give its text. ``message`` is written for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TooLarge(ExtractError):
    """A size limit was hit before anything big was read into memory."""


class BinaryContent(ExtractError):
    """The bytes are not text in any encoding; ``reason`` says what gave it away."""

    @property
    def reason(self) -> str:
        return self.message


class CorruptDocx(ExtractError):
    """Not a Word document at all, or a damaged or unsafe one."""


class EncryptedDocx(ExtractError):
    """A password-protected Office file: its text cannot be read without the password."""


class UnsupportedDocx(ExtractError):
    """A Word file of a kind neardup does not read."""


class EmptyDocument(ExtractError):
    """A document that opens but holds no text to compare; ``message`` says why (a PDF of
    scanned pages is not an empty document to its owner: it needs OCR)."""


class NotRegularFile(ExtractError, OSError):
    """A pipe, socket or device where a file was expected: reading it could block forever.

    Also an :class:`OSError`, so callers that only expect I/O errors (content hashing) treat it
    as one.
    """


#: O_NONBLOCK where it exists: opening a FIFO for reading then returns at once instead of
#: waiting for a writer that may never come.
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _opener(path: str, flags: int) -> int:
    return os.open(path, flags | _NONBLOCK)


def open_regular(path: str, open_file: Callable[..., Any] = open) -> BinaryIO:
    """Open ``path`` for binary reading, refusing anything but a regular file.

    The walk lists only regular files, but a file can be replaced by a FIFO between the walk and
    the read (or a caller may pass any path), and a plain ``open()`` of a FIFO blocks until a
    writer appears: a hung scan. The file is opened without blocking, checked with ``fstat``
    and switched back to blocking reads. Raises :class:`NotRegularFile` or the OSError of
    ``open()``. Readers pass their own module's ``open`` so a test can replace it there.
    """
    f = open_file(path, "rb", opener=_opener)
    try:
        mode = os.fstat(f.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile("it is not a regular file (a pipe, socket or device), so it "
                                 "was not read")
        if _NONBLOCK:
            os.set_blocking(f.fileno(), True)
    except BaseException:
        f.close()
        raise
    return f  # type: ignore[return-value]


def read_bounded(f: BinaryIO, limit: int) -> bytes:
    """Up to ``limit + 1`` bytes of ``f`` (one more than allowed tells "over the limit").

    ``f.read(n)`` allocates ``n`` bytes before it reads, so asking for the limit itself would
    reserve 64 MB for every 2 KB note; the file's size is asked first and only a file that
    grows while it is read (or a special file of size 0) is read on towards the limit.
    """
    try:
        size = os.fstat(f.fileno()).st_size
    except (OSError, AttributeError, ValueError):
        size = limit
    data = f.read(min(size, limit) + 1)
    if size < len(data) <= limit:  # it grew since fstat, or it does not report a size
        data += f.read(limit + 1 - len(data))
    return data


def read_capped(path: str, cap: int, too_large: str,
                open_file: Callable[..., Any] = open) -> bytes:
    """All the bytes of the regular file at ``path``, or :class:`TooLarge` with the sentence
    ``too_large`` when it holds more than ``cap``: refused from its size before anything is read,
    and never more than ``cap + 1`` bytes read if it grew meanwhile. The readers of whole
    documents (Word, PDF, OpenDocument, RTF, web pages) read their files through it;
    ``open_file`` as for :func:`open_regular` (the caller's own ``open``, a seam for tests)."""
    with open_regular(path, open_file) as f:
        if os.fstat(f.fileno()).st_size > cap:
            raise TooLarge(too_large)
        data = read_bounded(f, cap)
    if len(data) > cap:
        raise TooLarge(too_large)
    return data


def human_size(n: int | float) -> str:
    """``1288490188`` -> ``"1.2 GB"``, in the 1024-based units file managers show."""
    if n < 1024:
        return f"{int(n)} bytes" if n != 1 else "1 byte"
    value = float(n)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024.0
        if value < 1024.0 or unit == "TB":
            text = f"{value:.1f}"
            return f"{text.removesuffix('.0')} {unit}"
    raise AssertionError("unreachable")
