"""The strip shown while a scan runs: stage, files done of total, time left, and Cancel."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from neardup_core.progress import ProgressEvent, Stage

from ..models.presentation import EtaEstimator, format_eta
from .icons import icon


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

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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
        self._eta = EtaEstimator()
        self.last_event: ProgressEvent | None = None

    def start(self) -> None:
        self._eta = EtaEstimator()
        self.last_event = None
        self.stage.setText(self.tr("Starting…"))
        self.bar.setRange(0, 0)  # busy until a total is known
        self.counts.clear()
        self.eta.clear()
        self.cancel_button.setEnabled(True)
        self.show()

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.stage.setText(self.tr("Cancelling…"))
        self.cancelRequested.emit()

    def update_event(self, ev: ProgressEvent) -> None:
        self.last_event = ev
        if self.cancel_button.isEnabled():
            self.stage.setText(stage_label(ev.stage))
        if ev.total:
            self.bar.setRange(0, ev.total)
            self.bar.setValue(min(ev.done, ev.total))
            self.counts.setText(self.tr("{done} / {total} files").format(
                done=f"{ev.done:,}", total=f"{ev.total:,}") if ev.stage in (Stage.WALK,
                                                                            Stage.READ)
                else f"{ev.done:,} / {ev.total:,}")
        else:
            self.bar.setRange(0, 0)
            self.counts.setText(self.tr("{done} files found").format(done=f"{ev.done:,}")
                                if ev.stage == Stage.WALK else "")
        left = self._eta.update(ev.stage, ev.done, ev.total, ev.elapsed)
        self.eta.setText(self.tr("about {t} left").format(t=format_eta(left))
                         if left is not None and left >= 1 else "")
        self.bar.setToolTip(ev.message)
