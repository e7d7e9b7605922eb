"""Progress sinks and cancel tokens: how a long scan talks to whoever started it.

The engine never knows whether a terminal, a Qt worker or a test is listening: it calls a sink
with :class:`ProgressEvent` values and checks a :class:`CancelToken`. Both are plain Python so the
core stays free of any GUI toolkit; the Qt front end adapts them to signals.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from neardup_core.errors import ScanCancelled


class Stage(StrEnum):
    """Stages of a scan, in order. ``READ`` covers extraction and fingerprinting."""

    WALK = "walk"
    READ = "read"
    PAIRS = "pairs"
    GROUP = "group"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """Where a scan is. ``done`` / ``total`` count items (files, pairs); while reading,
    ``bytes_done`` / ``bytes_total`` count the files' bytes too (0: not counted), which is what
    the time left is estimated from: file counts say nothing about the size of what is left."""

    stage: Stage
    done: int
    total: int | None  # None while the total is not known yet (walking)
    message: str = ""
    elapsed: float = 0.0  # seconds since the scan started
    bytes_done: int = 0
    bytes_total: int = 0

    @property
    def fraction(self) -> float | None:
        """How far the stage is, by bytes when they are counted, else by items."""
        if self.bytes_total > 0:
            return min(1.0, self.bytes_done / self.bytes_total)
        if not self.total:
            return None
        return min(1.0, self.done / self.total)

    @property
    def bytes_left(self) -> int:
        """Bytes still to read (0 when bytes are not counted)."""
        return max(0, self.bytes_total - self.bytes_done) if self.bytes_total > 0 else 0


class ProgressSink(Protocol):
    def __call__(self, event: ProgressEvent) -> None: ...


def null_progress(event: ProgressEvent) -> None:
    """A sink that ignores everything; the default."""


class Throttled:
    """Wraps a sink so it receives at most ``rate`` events per second.

    A scan of 100,000 small files would otherwise flood a GUI event queue. Stage changes and
    the final event of a stage (done == total) always pass.
    """

    def __init__(self, sink: ProgressSink, rate: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._sink = sink
        self._interval = 1.0 / rate if rate > 0 else 0.0
        self._clock = clock
        self._last = float("-inf")
        self._stage: Stage | None = None

    def __call__(self, event: ProgressEvent) -> None:
        now = self._clock()
        final = event.total is not None and event.done >= event.total
        if event.stage != self._stage or final or now - self._last >= self._interval:
            self._stage = event.stage
            self._last = now
            self._sink(event)


class TimeLeft:
    """Seconds left in the current stage, from the rate seen so far in it.

    Work is measured in bytes when the events count them (reading) and in items otherwise: a
    scan whose last 2 % of files are its largest would otherwise be "about 2 s" from the end
    for a minute. The estimate restarts when the stage (or its total) changes or the count goes
    back (the boilerplate pass re-reads), since stages run at very different speeds. The rate
    is the stage's average so far, steady without further smoothing (smoothing the estimate
    instead would hide the jump when the work left turns out large); it needs ``warmup``
    seconds of a stage before it says anything.

    Between events the estimate counts down (:meth:`at`); it never goes below zero while work
    is left: a caller then says that the last files are still being read, not "0 s".
    """

    def __init__(self, warmup: float = 0.5) -> None:
        self.warmup = warmup
        self._key: tuple | None = None
        self._t0 = 0.0
        self._work0 = 0
        self._work = 0
        self._total = 0
        self._eta: float | None = None
        self._at = 0.0

    @staticmethod
    def _measure(ev: ProgressEvent) -> tuple[str, int, int] | None:
        if ev.bytes_total > 0:
            return "bytes", ev.bytes_done, ev.bytes_total
        if ev.total:
            return "items", ev.done, ev.total
        return None

    def update(self, ev: ProgressEvent) -> float | None:
        """Take an event; return the seconds left as of it (None: not known yet)."""
        measure = self._measure(ev)
        if measure is None:
            self._key, self._eta = None, None
            return None
        unit, work, total = measure
        key = (ev.stage, unit, total)
        if key != self._key or work < self._work:
            self._key, self._t0, self._work0, self._eta = key, ev.elapsed, work, None
            self._work, self._total, self._at = work, total, ev.elapsed
            return None
        self._work, self._total = work, total
        if work >= total:
            self._eta, self._at = 0.0, ev.elapsed
            return 0.0
        spent = ev.elapsed - self._t0
        if work <= self._work0 or spent < self.warmup:
            return self.at(ev.elapsed)
        self._eta = (total - work) * spent / (work - self._work0)
        self._at = ev.elapsed
        return self._eta

    def at(self, elapsed: float) -> float | None:
        """The estimate counted down to ``elapsed`` (seconds since the scan started)."""
        if self._eta is None:
            return None
        return max(0.0, self._eta - max(0.0, elapsed - self._at))

    @property
    def work_left(self) -> int:
        """Bytes (or items) still to do as of the last event."""
        return max(0, self._total - self._work) if self._key is not None else 0

    @property
    def unit(self) -> str | None:
        """``"bytes"`` or ``"items"``: what :attr:`work_left` counts (None: nothing yet)."""
        return self._key[1] if self._key is not None else None


class CancelToken:
    """Cooperative cancellation shared between the caller's thread and the scan."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise ScanCancelled()

    def wait(self, timeout: float) -> bool:
        """Sleep up to ``timeout`` seconds, waking early on cancel. Returns ``cancelled``."""
        return self._event.wait(timeout)
