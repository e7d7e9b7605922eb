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

import functools
import io
import math
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, ParamSpec, TypeVar

import numpy as np

from neardup_core.gcpause import gc_paused
from neardup_core.result import ScanResult

P = ParamSpec("P")
R = TypeVar("R")


def collector_paused(write: Callable[P, R]) -> Callable[P, R]:
    """Run ``write`` with Python's cyclic garbage collector held off
    (:func:`~neardup_core.gcpause.gc_paused`, which other threads' pauses share).

    A writer makes a few small containers per line (a document's tuple of format and
    encoding, lists of cells) and keeps none of them: nothing it makes is a cycle, but every
    700 of them start a collection, and now and then one that walks every object the program
    holds, a result of 200,000 documents included. That walking was a third of the CSV
    report's time at 200,000 files (0.77 s of CPU with it, 0.54 s without: issue 22).
    Reference counting still frees what the writer drops, so its memory is as before."""

    @functools.wraps(write)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return write(*args, **kwargs)

    return paused


def has_surrogates(s: str) -> bool:
    """Whether :func:`display` would change ``s``. A text is ASCII, known at once, or encodes as
    UTF-8 unless it holds a surrogate (the only code points UTF-8 cannot take): a regex search
    over a report block's paths (2 MB at 26,000 files) took 6 ms, these take 0.01 and 1.5."""
    if s.isascii():
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def local_time(mtime: float) -> str:
    """A modification time as local ``YYYY-MM-DD HH:MM:SS`` (CSV and HTML), or "" when the
    timestamp is out of the platform's range."""
    try:
        return datetime.fromtimestamp(mtime).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return ""


class LocalClock:
    """Modification times as text for many files at once, in exactly the words of
    :func:`local_time` (``plain``) and of ``datetime.fromtimestamp(t).astimezone().isoformat(
    timespec="seconds")`` (``iso``), with the date, hour and minute worked out once per minute:
    files copied together share their minute, and the calendar is most of the cost of a report
    line. A minute is cached only when its first and last second have the same whole-minute UTC
    offset (a change of offset falls inside a minute only in old local mean times); anything
    else goes through :mod:`datetime` as before."""

    def __init__(self) -> None:
        self._minutes: dict[int, tuple[str, str] | None] = {}

    def _parts(self, mtime: float) -> tuple[tuple[str, str], int] | None:
        try:
            whole = math.floor(mtime)
            if round((mtime - whole) * 1e6) >= 1_000_000:  # as datetime rounds microseconds
                whole += 1
        except (OverflowError, ValueError):
            return None
        minute, second = divmod(whole, 60)
        parts = self._minutes.get(minute, False)
        if parts is False:
            parts = self._minutes[minute] = _minute_parts(minute)
        return None if parts is None else (parts, second)

    def plain(self, mtime: float) -> str:
        """Local ``YYYY-MM-DD HH:MM:SS``, or "" out of range (as :func:`local_time`)."""
        got = self._parts(mtime)
        if got is None:
            return local_time(mtime)
        (day, _), second = got
        return f"{day[:10]} {day[11:]}{second:02d}"

    def plain_many(self, mtimes: Sequence[float]) -> list[str]:
        """:meth:`plain` of each time, the minutes and seconds worked out with numpy."""
        return self._many(mtimes, iso=False)

    def iso_many(self, mtimes: Sequence[float]) -> list[str | None]:
        """:meth:`iso` of each time, the minutes and seconds worked out with numpy."""
        return self._many(mtimes, iso=True)

    def _many(self, mtimes: Sequence[float], *, iso: bool) -> list[Any]:
        """:meth:`iso` (or :meth:`plain`) of each time: each minute's words made once, the
        seconds (and the offset after them) put in with numpy; a time out of range, or in a
        minute of two offsets, is worded one by one."""
        one = self.iso if iso else self.plain
        try:
            m = np.fromiter(mtimes, dtype=np.float64, count=len(mtimes))
        except (OverflowError, TypeError, ValueError):  # not a float: as one() words it
            return [one(t) for t in mtimes]
        ok = np.isfinite(m) & (np.abs(m) < 1e15)  # else through one(), one by one
        m[~ok] = 0.0
        whole = np.floor(m)
        whole += np.rint((m - whole) * 1e6) >= 1_000_000  # as datetime rounds microseconds
        minute, second = np.divmod(whole.astype(np.int64), 60)
        distinct, inverse = _distinct(minute)
        days = np.full(len(distinct), "", dtype=object)
        offsets = np.full(len(distinct), "", dtype=object)
        missing = np.zeros(len(distinct), dtype=bool)
        for k, mi in enumerate(distinct.tolist()):
            parts = self._minutes.get(mi, False)
            if parts is False:
                parts = self._minutes[mi] = _minute_parts(mi)
            if parts is None:
                missing[k] = True
            elif iso:
                days[k], offsets[k] = parts
            else:
                days[k] = f"{parts[0][:10]} {parts[0][11:]}"
        texts = days[inverse] + _SECONDS[second]
        if iso:
            texts += offsets[inverse]
        out: list[Any] = texts.tolist()
        for i in np.flatnonzero(~ok | missing[inverse]).tolist():
            out[i] = one(mtimes[i])  # out of range, or a minute of two offsets
        return out

    def iso(self, mtime: float) -> str | None:
        """ISO 8601 local time with its offset, to the second, or None out of range."""
        got = self._parts(mtime)
        if got is None:
            return iso_time(mtime)
        (day, offset), second = got
        return f"{day}{second:02d}{offset}"


_SECONDS = np.array([f"{s:02d}" for s in range(60)], dtype=object)


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of integers, without the sort when they
    span a short range (the minutes of files written together)."""
    if not values.size:
        return values, values
    low, high = int(values.min()), int(values.max())
    if high - low > 4 * values.size + 1024:
        return np.unique(values, return_inverse=True)
    seen = np.zeros(high - low + 1, dtype=bool)
    seen[values - low] = True
    rank = np.cumsum(seen) - 1
    return np.flatnonzero(seen) + low, rank[values - low]


def iso_time(mtime: float) -> str | None:
    """ISO 8601 local time with its offset (the JSON report's "modified"), or None when the
    timestamp is out of the platform's range."""
    try:
        return datetime.fromtimestamp(mtime).astimezone().isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return None


def _minute_parts(minute: int) -> tuple[str, str] | None:
    """("YYYY-MM-DDTHH:MM:", "+HH:MM") of a minute since the epoch, or None when its seconds
    must be worked out one by one."""
    try:
        first, last = time.localtime(minute * 60), time.localtime(minute * 60 + 59)
    except (OverflowError, OSError, ValueError):
        return None
    off = first.tm_gmtoff
    if off is None or off != last.tm_gmtoff or off % 60 or not 1 < first.tm_year < 9999:
        return None
    sign = "-" if off < 0 else "+"
    hours, minutes = divmod(abs(off) // 60, 60)
    return (f"{first.tm_year:04d}-{first.tm_mon:02d}-{first.tm_mday:02d}T{first.tm_hour:02d}:"
            f"{first.tm_min:02d}:", f"{sign}{hours:02d}:{minutes:02d}")


def render(writer: Callable[..., None], result: ScanResult, **kw: Any) -> str:
    """A report as a string (tests, previews): ``render(write_html, result)``."""
    buf = io.StringIO()
    writer(result, buf, **kw)
    return buf.getvalue()
