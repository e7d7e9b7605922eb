"""Display values computed without Qt, so the table logic is testable on its own (dupeGuru's
"GUI model" layer). Strings that need translating stay in the Qt models; here are only numbers,
units and paths."""

from __future__ import annotations

import math
import os
import re
import time

from neardup_core.models import Document

_UNITS = ("B", "KB", "MB", "GB", "TB")


def format_size(n: int) -> str:
    """Binary-prefixed sizes with three significant digits: 980 B, 12.4 KB, 3.07 MB."""
    if n < 1024:
        return f"{n} B"
    v = float(n)
    for unit in _UNITS[1:]:
        v /= 1024.0
        if v < 1024 or unit == _UNITS[-1]:
            break
    digits = 2 if v < 10 else 1 if v < 100 else 0
    return f"{v:.{digits}f} {unit}"


def format_time(mtime: float) -> str:
    """Local time to the minute, sortable as text: 2024-03-04 09:15."""
    if not math.isfinite(mtime) or mtime <= 0:
        return ""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(mtime))


def format_percent(x: float | None, digits: int = 1) -> str:
    """A share as a percentage; whole numbers lose the decimals (100%, 87.5%).

    Only a share of 1 shows as 100%: 0.9996 is 99.9%, since "100%" would say two texts that
    differ are the same.
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    p = round(100.0 * x, digits)
    if p >= 100.0 and x < 1.0:
        p = round(100.0 - 10.0 ** -digits, digits)
    return f"{p:.0f}%" if p == int(p) else f"{p:.{digits}f}%"


def format_share(x: float, digits: int = 2) -> str:
    """A share in [0, 1] with ``digits`` decimals, where only 1 itself is 1.00 (as for
    :func:`format_percent`)."""
    text = f"{x:.{digits}f}"
    if x < 1.0 and float(text) >= 1.0:
        text = f"{1 - 10.0 ** -digits:.{digits}f}"
    return text


def format_encoding(doc: Document) -> str:
    """``txt · gb18030`` or ``docx``; the detector's confidence goes in a tooltip."""
    if doc.encoding:
        return f"{doc.format} · {doc.encoding}"
    return doc.format


#: The kinds of content a reader may leave uncompared, as the core words them
#: (``DocxContent.skipped``: "2 pictures, 1 chart not compared").
SKIPPED_KINDS = ("picture", "chart", "embedded object", "embedded document")
_SKIPPED_PART = re.compile(r"(\d+) (" + "|".join(SKIPPED_KINDS) + r")s?")


def skipped_parts(skipped: str | None) -> list[tuple[int, str]] | None:
    """``Document.skipped`` as (count, kind) pairs, so the Qt model can say it in the user's
    language; [] for nothing skipped, None for wording it does not know (shown as it is)."""
    if not skipped:
        return []
    said = skipped.removesuffix(" not compared")
    if said == skipped:
        return None
    parts = []
    for piece in said.split(", "):
        m = _SKIPPED_PART.fullmatch(piece)
        if m is None:
            return None
        parts.append((int(m.group(1)), m.group(2)))
    return parts


def format_eta(seconds: float | None) -> str:
    """Remaining time, coarse on purpose: 45 s, 3 min 20 s, 1 h 05 min."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return ""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def path_matches(path: str, needle: str) -> bool:
    """Case-insensitive substring match on the whole path, with either slash."""
    if not needle:
        return True
    hay = path.casefold()
    n = needle.casefold()
    return n in hay or n.replace("/", os.sep) in hay


def is_inside(path: str, folder: str) -> bool:
    """Whether ``path`` lies in ``folder`` or below it (no string-prefix false positives)."""
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)]) == \
            os.path.abspath(folder)
    except ValueError:  # different drives on Windows
        return False


class EtaEstimator:
    """Time left from the rate seen so far in the current stage.

    Resets when the stage changes, because walking, reading and pairing run at very different
    speeds. Smoothed so the label does not jump on every event.
    """

    def __init__(self) -> None:
        self._stage: object = None
        self._t0 = 0.0
        self._done0 = 0
        self._eta: float | None = None

    def update(self, stage: object, done: int, total: int | None, elapsed: float) -> float | None:
        if stage != self._stage:
            self._stage, self._t0, self._done0, self._eta = stage, elapsed, done, None
            return None
        if not total or done <= self._done0 or elapsed - self._t0 < 0.5:
            return self._eta
        rate = (done - self._done0) / (elapsed - self._t0)
        raw = max(0.0, (total - done) / rate)
        self._eta = raw if self._eta is None else 0.7 * self._eta + 0.3 * raw
        return self._eta
