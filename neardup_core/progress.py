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
    stage: Stage
    done: int
    total: int | None  # None while the total is not known yet (walking)
    message: str = ""
    elapsed: float = 0.0  # seconds since the scan started

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, self.done / self.total)


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
