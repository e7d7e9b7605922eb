"""One control for the threshold: slider, exact percentage, grouping mode and the histogram.

The slider, the spin box and clicks on the histogram all drive one value. Changes are
coalesced for a few milliseconds (a slider drag fires dozens of times a second) and then
announced once through ``thresholdChanged``; regrouping itself takes milliseconds.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from .histogram import HistogramWidget

# Slider steps per unit of similarity (0.1 % resolution).
STEPS = 1000
DEBOUNCE_MS = 30


class ThresholdPanel(QWidget):
    thresholdChanged = Signal(float)
    modeChanged = Signal(str)
    logScaleChanged = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._floor = 0.4
        self._value = 0.6
        self._announced = 0.6

        title = QLabel(self.tr("Similarity threshold"))
        f = title.font()
        f.setBold(True)
        title.setFont(f)

        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setMinimumWidth(160)
        self.slider.setSingleStep(STEPS // 100)  # arrow keys: 1 % (0.1 % took 200 presses)
        self.slider.setPageStep(STEPS // 20)
        self.slider.setToolTip(self.tr("Files whose similarity is at least this are grouped"))
        self.spin = QDoubleSpinBox()
        self.spin.setDecimals(1)
        self.spin.setSingleStep(1.0)
        self.spin.setSuffix(" %")
        self.spin.setKeyboardTracking(False)
        self.spin.setToolTip(self.slider.toolTip())

        self.mode = QComboBox()
        self.mode.addItem(self.tr("Connected"), "connected")
        self.mode.addItem(self.tr("Strict"), "strict")
        self.mode.setItemData(0, self.tr("A file joins a group when it is similar to any member "
                                         "(chains of similar files form one group)"),
                              Qt.ItemDataRole.ToolTipRole)
        self.mode.setItemData(1, self.tr("A file joins a group only when it is similar to the "
                                         "group's reference"), Qt.ItemDataRole.ToolTipRole)
        self.mode.addItem(self.tr("Cohesive"), "cohesive")
        self.mode.setItemData(2, self.tr("Like Connected, but two files far less similar than "
                                         "the threshold never share a group"),
                              Qt.ItemDataRole.ToolTipRole)
        self.mode.setToolTip(self.tr("How pairs above the threshold form groups"))

        self.log_box = QCheckBox(self.tr("Log scale"))
        self.log_box.setToolTip(self.tr("Show the histogram's counts on a logarithmic scale"))

        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)

        self.histogram = HistogramWidget()

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(6)
        grid.addWidget(title, 0, 0, 1, 2)
        grid.addWidget(self.slider, 1, 0)
        grid.addWidget(self.spin, 1, 1)
        mode_row = QHBoxLayout()
        mode_row.addWidget(QLabel(self.tr("Grouping:")))
        mode_row.addWidget(self.mode, 1)
        grid.addLayout(mode_row, 2, 0, 1, 2)
        grid.addWidget(self.log_box, 3, 0, 1, 2)
        grid.addWidget(self.summary, 4, 0, 1, 2)
        left = QVBoxLayout()
        left.addLayout(grid)
        left.addStretch(1)

        row = QHBoxLayout(self)
        row.setContentsMargins(8, 6, 8, 6)
        row.setSpacing(14)
        row.addLayout(left, 0)
        row.addWidget(self.histogram, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._announce)

        self.slider.valueChanged.connect(self._from_slider)
        self.spin.valueChanged.connect(self._from_spin)
        self.histogram.thresholdPicked.connect(self._from_histogram)
        self.mode.currentIndexChanged.connect(
            lambda _i: self.modeChanged.emit(self.mode.currentData()))
        self.log_box.toggled.connect(self.histogram.set_log_scale)
        self.log_box.toggled.connect(self.logScaleChanged)
        self.set_range(self._floor)
        self.set_threshold(self._value)

    # -- programmatic control -------------------------------------------------------------
    def set_range(self, floor: float) -> None:
        """Allow thresholds from ``floor`` (the loosest the result can regroup at) to 100 %."""
        self._floor = float(floor)
        with QSignalBlocker(self.slider), QSignalBlocker(self.spin):
            self.slider.setRange(round(self._floor * STEPS), STEPS)
            self.spin.setRange(self._floor * 100.0, 100.0)
        self.set_threshold(max(self._value, self._floor))

    def set_threshold(self, t: float) -> None:
        """Show ``t`` without announcing it (the caller already knows)."""
        t = min(1.0, max(self._floor, float(t)))
        self._value = self._announced = t
        self._debounce.stop()
        self._sync_widgets()

    def threshold(self) -> float:
        return self._value

    def floor(self) -> float:
        return self._floor

    def set_mode(self, mode: str) -> None:
        with QSignalBlocker(self.mode):
            i = self.mode.findData(str(mode))
            if i >= 0:
                self.mode.setCurrentIndex(i)

    def current_mode(self) -> str:
        return str(self.mode.currentData())

    def set_log_scale(self, on: bool) -> None:
        self.log_box.setChecked(on)
        self.histogram.set_log_scale(on)

    def set_histogram(self, counts: np.ndarray, edges: np.ndarray, exact: int = 0) -> None:
        self.histogram.set_data(counts, edges, exact)

    def set_summary(self, text: str) -> None:
        self.summary.setText(text)

    def flush(self) -> None:
        """Announce a pending change now (tests, and before actions that need the latest)."""
        if self._debounce.isActive():
            self._debounce.stop()
            self._announce()

    # -- user input -----------------------------------------------------------------------
    def _from_slider(self, v: int) -> None:
        self._set_from_user(v / STEPS)

    def _from_spin(self, v: float) -> None:
        self._set_from_user(v / 100.0)

    def _from_histogram(self, v: float) -> None:
        self._set_from_user(round(v * STEPS) / STEPS)

    def _set_from_user(self, t: float) -> None:
        t = min(1.0, max(self._floor, t))
        if abs(t - self._value) < 1e-9:
            return
        self._value = t
        self._sync_widgets()
        self._debounce.start()

    def _sync_widgets(self) -> None:
        with QSignalBlocker(self.slider), QSignalBlocker(self.spin):
            self.slider.setValue(round(self._value * STEPS))
            self.spin.setValue(self._value * 100.0)
        self.histogram.set_threshold(self._value)

    def _announce(self) -> None:
        if abs(self._value - self._announced) < 1e-9:
            return
        self._announced = self._value
        self.thresholdChanged.emit(self._value)
