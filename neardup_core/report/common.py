"""What every report format shares: where a report goes, names made safe to write, and a
report rendered to a string.

Every format writes to a :data:`Destination`: a path (written through
:func:`~neardup_core.output.open_output`: a file is replaced only by a complete report, so a
failed write keeps the previous one; a device, a FIFO or ``/dev/fd/N`` is written as a stream;
``-`` is standard output) or an open text stream (used as it is). A file name that is not
valid UTF-8 (Linux keeps such names as surrogate escapes) is written with U+FFFD in place of each
undecodable byte, in every format: such a path is for display and cannot be used to open the
file. A reader that goes away (``neardup scan ... | head``) ends the writing with the
:class:`BrokenPipeError` itself, not a :class:`ReportError`: the command line stays quiet then.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import IO, Any, TextIO

from neardup_core.errors import ReportError
from neardup_core.output import open_output
from neardup_core.result import ScanResult

Destination = str | os.PathLike[str] | TextIO
"""Where a report goes: a path, or an open text stream."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def display(s: str) -> str:
    """``s`` safe to encode as UTF-8: surrogates (undecodable bytes of a name) become U+FFFD."""
    return _SURROGATE.sub("\ufffd", s)


def local_time(mtime: float) -> str:
    """A modification time as local ``YYYY-MM-DD HH:MM:SS`` (CSV and HTML), or "" when the
    timestamp is out of the platform's range."""
    try:
        return datetime.fromtimestamp(mtime).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return ""


@contextlib.contextmanager
def open_destination(dest: Destination, *, newline: str | None = None) -> Iterator[IO[str]]:
    """A text stream for ``dest``: an open stream as it is, a path through :func:`open_output`.
    Write failures (a full disk, a folder, a read-only target) become one :class:`ReportError`
    that names the path and the reason."""
    if not isinstance(dest, str | os.PathLike):
        try:
            yield dest
        except BrokenPipeError:
            raise
        except (OSError, UnicodeError) as exc:
            raise ReportError(f"could not write the report: {exc}") from exc
        return
    try:
        with open_output(dest, "w", encoding="utf-8", newline=newline) as fp:
            yield fp
    except BrokenPipeError:
        raise
    except (OSError, UnicodeError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise ReportError(f"cannot write {display(os.fspath(dest))}: {why}") from exc


def render(writer: Callable[..., None], result: ScanResult, **kw: Any) -> str:
    """A report as a string (tests, previews): ``render(write_html, result)``."""
    buf = io.StringIO()
    writer(result, buf, **kw)
    return buf.getvalue()
