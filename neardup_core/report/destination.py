"""Where a report goes, apart from the writers (no NumPy): a kept report
(:mod:`neardup_core.report.kept`) is written again through exactly the path its writer took."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator

from neardup_core.errors import ReportError
from neardup_core.output import open_output

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:
    from typing import IO, Any, TextIO

    Destination = str | os.PathLike[str] | TextIO
    """Where a report goes: a path, or an open text stream."""

__all__ = ["Destination", "display", "open_destination"]


def __getattr__(name: str) -> object:
    # the alias is made when a writer imports it, not by a rescan answered whole, which writes
    # through this module and must not import typing (see neardup_core.report.kept)
    if name == "Destination":
        from typing import TextIO

        return str | os.PathLike[str] | TextIO
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_SURROGATE = re.compile("[\ud800-\udfff]")


def display(s: str) -> str:
    """``s`` safe to encode as UTF-8: surrogates (undecodable bytes of a name) become U+FFFD."""
    return _SURROGATE.sub("\ufffd", s)


@contextlib.contextmanager
def open_destination(dest: Destination, *, newline: str | None = None,
                     binary: bool = False) -> Iterator[IO[Any]]:
    """A text stream for ``dest``: an open stream as it is, a path through :func:`open_output`
    (``binary``: a byte stream for a path, which the caller encodes as a text one would).
    Write failures (a full disk, a folder, a read-only target) become one :class:`ReportError`
    that names the path and the reason."""
    if not isinstance(dest, str | os.PathLike):
        if binary:
            raise TypeError("only a path is opened for bytes")
        try:
            yield dest
        except BrokenPipeError:
            raise
        except (OSError, UnicodeError) as exc:
            raise ReportError(f"could not write the report: {exc}") from exc
        return
    try:
        if binary:
            with open_output(dest, "wb") as fp:
                yield fp
        else:
            with open_output(dest, "w", encoding="utf-8", newline=newline) as fp:
                yield fp
    except BrokenPipeError:
        raise
    except (OSError, UnicodeError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise ReportError(f"cannot write {display(os.fspath(dest))}: {why}") from exc
