"""The strip shown while a scan runs: stage, files done of total, time left, and Cancel.

While reading, the bar and the time left follow bytes, not files: the last files of a whole
disk are often its largest (an archive of logs, a book), and a count of files called the scan
98 % done with "about 2 s left" for a minute. Between progress events (none come while a large
file is read) the time left counts down on a timer; when it runs out with bytes still to
read, the strip says how much is left rather than claiming seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QTimer, Signal
from PySide6.QtGui import QHideEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from neardup_core.progress import ProgressEvent, Stage, TimeLeft

from ..models.presentation import format_eta, format_size
from .icons import icon

#: The bar's range when it shows a fraction of bytes (which may not fit Qt's int).
BAR_SCALE = 1000
#: How often the time left is redrawn between progress events (ms).
TICK_MS = 1000


def stage_label(stage: Stage | str) -> str:
    labels = {
        Stage.WALK: QCoreApplication.translate("Stage", "Listing files"),
        Stage.READ: QCoreApplication.translate("Stage", "Reading and fingerprinting"),
        Stage.PAIRS: QCoreApplication.translate("Stage", "Finding similar pairs"),
        Stage.GROUP: QCoreApplication.translate("Stage", "Grouping"),
        Stage.DONE: QCoreApplication.translate("Stage", "Done"),
    }
    try:
        return labels[Stage(stage)]
    except ValueError:
        return str(stage)


class ProgressPanel(QWidget):
    cancelRequested = Signal()

    def __init__(self, parent: QWidget | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self._clock = clock
        self._event_clock = 0.0  # the clock when last_event arrived
        self.stage = QLabel()
        self.bar = QProgressBar()
        self.bar.setTextVisible(True)
        self.bar.setMinimumWidth(220)
        self.counts = QLabel()
        self.eta = QLabel()
        self.cancel_button = QPushButton(icon("stop"), self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop the scan and show what was found so far"))
        self.cancel_button.clicked.connect(self._cancel)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        lay.addWidget(self.stage)
        lay.addWidget(self.bar, 1)
        lay.addWidget(self.counts)
        lay.addWidget(self.eta)
        lay.addWidget(self.cancel_button)
        self._eta = TimeLeft()
        self.last_event: ProgressEvent | None = None
        self.ticker = QTimer(self)
        self.ticker.setInterval(TICK_MS)
        self.ticker.timeout.connect(self.refresh_time_left)

    def start(self) -> None:
        self._eta = TimeLeft()
        self.last_event = None
        self.ticker.start()
        self.stage.setText(self.tr("Starting…"))
        self.bar.setRange(0, 0)  # busy until a total is known
        self.counts.clear()
        self.eta.clear()
        self.cancel_button.setEnabled(True)
        self.show()

    def hideEvent(self, event: QHideEvent) -> None:
        """No ticking while hidden (the scan ended or the window closed)."""
        self.ticker.stop()
        super().hideEvent(event)

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.stage.setText(self.tr("Cancelling…"))
        self.cancelRequested.emit()

    def update_event(self, ev: ProgressEvent) -> None:
        self.last_event = ev
        if self.cancel_button.isEnabled():
            self.stage.setText(stage_label(ev.stage))
        if ev.bytes_total > 0:
            self.bar.setRange(0, BAR_SCALE)
            self.bar.setValue(round(BAR_SCALE * (ev.fraction or 0.0)))
        elif ev.total:
            self.bar.setRange(0, ev.total)
            self.bar.setValue(min(ev.done, ev.total))
        if ev.total:
            self.counts.setText(self.tr("{done} / {total} files").format(
                done=f"{ev.done:,}", total=f"{ev.total:,}") if ev.stage in (Stage.WALK,
                                                                            Stage.READ)
                else f"{ev.done:,} / {ev.total:,}")
        else:
            if not ev.bytes_total:
                self.bar.setRange(0, 0)
            self.counts.setText(self.tr("{done} files found").format(done=f"{ev.done:,}")
                                if ev.stage == Stage.WALK else "")
        self._event_clock = self._clock()
        self._eta.update(ev)
        self.refresh_time_left()
        self.bar.setToolTip(ev.message)

    def refresh_time_left(self) -> None:
        """Show the time left as of now: the last estimate counted down since its event."""
        ev = self.last_event
        if ev is None:
            self.eta.clear()
            return
        left = self._eta.at(ev.elapsed + max(0.0, self._clock() - self._event_clock))
        self.eta.setText(self.time_left_text(left))

    def time_left_text(self, left: float | None) -> str:
        """"about 3 min 20 s left"; once the estimate has run out while bytes are still to be
        read (a large file takes longer than the ones before it), how much is left instead;
        nothing before the first estimate or when the stage is done."""
        if left is None:
            return ""
        if left >= 1:
            return self.tr("about {t} left").format(t=format_eta(left))
        remaining = self._eta.work_left
        if remaining and self._eta.unit == "bytes":
            return self.tr("finishing: {size} still to read").format(
                size=format_size(remaining))
        if remaining:
            return self.tr("finishing…")
        return ""
