"""The distribution of pair scores, with the threshold drawn across it.

Painted with QPainter rather than a chart library: a few dozen bars do not justify a dependency.
Bars right of the cut are the pairs that currently group files; they are drawn in the accent
colour on a shaded band, so moving the slider shows at once how much it pulls in. Clicking or
dragging on the chart sets the threshold too; with the keyboard focus on it, the arrow keys
move the cut by 1 % (Page Up/Down by 5 %). Hovering a bar tells how many pairs it holds; the axes
carry titles and the y axis ticks, on the log scale too.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QLocale, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

ACCENT = QColor(45, 110, 200)
ACCENT_SHADE = QColor(45, 110, 200, 28)
IDLE = QColor(160, 170, 185)
CUT = QColor(200, 50, 40)


class HistogramWidget(QWidget):
    """Pair-score histogram between ``floor`` and 1.0 with a movable cut."""

    thresholdPicked = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._counts = np.zeros(0, dtype=np.int64)
        self._edges = np.zeros(0, dtype=np.float64)
        self._threshold = 0.6
        self._log = False
        self._exact = 0
        self._dragging = False
        self.setMinimumSize(260, 96)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)  # counts on hover
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # arrow keys step the cut
        self.setToolTip(self.tr("How many pairs of files score at each similarity. "
                                "Pairs right of the red line are grouped. Click to move it."))

    # -- state ----------------------------------------------------------------------------
    def set_data(self, counts: np.ndarray, edges: np.ndarray, exact: int = 0) -> None:
        self._counts = np.asarray(counts, dtype=np.int64)
        self._edges = np.asarray(edges, dtype=np.float64)
        self._exact = int(exact)
        self.update()

    def clear(self) -> None:
        self.set_data(np.zeros(0, dtype=np.int64), np.zeros(0), 0)

    def set_threshold(self, t: float) -> None:
        if t != self._threshold:
            self._threshold = float(t)
            self.update()

    def threshold(self) -> float:
        return self._threshold

    def set_log_scale(self, on: bool) -> None:
        if on != self._log:
            self._log = bool(on)
            self.update()

    def log_scale(self) -> bool:
        return self._log

    def counts(self) -> np.ndarray:
        return self._counts

    def grouped_pairs(self) -> int:
        """Pairs (exact copies excluded) at or above the cut, as shaded on screen."""
        if self._counts.size == 0:
            return 0
        centers = (self._edges[:-1] + self._edges[1:]) / 2
        return int(self._counts[centers >= self._threshold].sum())

    def sizeHint(self) -> QSize:
        return QSize(420, 120)

    # -- geometry ---------------------------------------------------------------------------
    def _plot_rect(self) -> QRectF:
        fm = self.fontMetrics()
        left = fm.horizontalAdvance("00000") + 6
        bottom = 2 * fm.height() + 6  # the tick labels, then the axis title under them
        top = fm.height() + 2  # a line above the bars for notes (exact copies, log scale)
        right = fm.horizontalAdvance("100%") // 2 + 6
        return QRectF(left, top, max(10, self.width() - left - right),
                      max(10, self.height() - top - bottom))

    def _range(self) -> tuple[float, float]:
        if self._edges.size >= 2:
            return float(self._edges[0]), float(self._edges[-1])
        return 0.4, 1.0

    def _x(self, value: float, plot: QRectF) -> float:
        lo, hi = self._range()
        return plot.left() + (value - lo) / (hi - lo or 1.0) * plot.width()

    def value_at(self, x: float) -> float:
        plot = self._plot_rect()
        lo, hi = self._range()
        v = lo + (x - plot.left()) / plot.width() * (hi - lo)
        return float(min(hi, max(lo, v)))

    # -- mouse ------------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self._edges.size >= 2:
            self._dragging = True
            self.thresholdPicked.emit(self.value_at(event.position().x()))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._dragging:
            self.thresholdPicked.emit(self.value_at(event.position().x()))
            return
        tip = self.bar_tip(event.position().x())
        if tip:
            QToolTip.showText(event.globalPosition().toPoint(), tip, self)
        else:
            QToolTip.hideText()

    def bar_tip(self, x: float) -> str:
        """What hovering at ``x`` tells: the pairs in the bar under it and its score range."""
        n = self._counts.size
        if n == 0:
            return ""
        plot = self._plot_rect()
        if not plot.left() <= x <= plot.right():
            return ""
        i = min(n - 1, max(0, int((x - plot.left()) / plot.width() * n)))
        loc = QLocale()
        lo, hi = float(self._edges[i]), float(self._edges[i + 1])
        return self.tr("%Ln pairs between {lo} and {hi}", "", int(self._counts[i])).format(
            lo=loc.toString(100 * lo, "f", 1) + " %", hi=loc.toString(100 * hi, "f", 1) + " %")

    def keyPressEvent(self, event: QKeyEvent) -> None:
        steps = {Qt.Key.Key_Left: -0.01, Qt.Key.Key_Down: -0.01, Qt.Key.Key_Right: 0.01,
                 Qt.Key.Key_Up: 0.01, Qt.Key.Key_PageDown: -0.05, Qt.Key.Key_PageUp: 0.05}
        step = steps.get(Qt.Key(event.key()))
        if step is None or self._edges.size < 2:
            super().keyPressEvent(event)
            return
        lo, hi = self._range()
        value = round((self._threshold + step) * 100) / 100  # whole percents, as the slider
        self.thresholdPicked.emit(float(min(hi, max(lo, value))))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._dragging = False

    # -- painting ---------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        pal = self.palette()
        text = pal.color(QPalette.ColorRole.WindowText)
        muted = QColor(text)
        muted.setAlpha(150)
        plot = self._plot_rect()
        p.fillRect(plot, pal.color(QPalette.ColorRole.Base))

        lo, hi = self._range()
        cut_x = self._x(min(max(self._threshold, lo), hi), plot)
        p.fillRect(QRectF(cut_x, plot.top(), plot.right() - cut_x, plot.height()), ACCENT_SHADE)

        small = QFont(self.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        p.setFont(small)
        fm = p.fontMetrics()

        counts = self._counts
        top = int(counts.max()) if counts.size else 0
        if counts.size and top > 0:
            scale = math.log10(top + 1) if self._log else float(top)
            n = counts.size
            bar_w = plot.width() / n
            for i, c in enumerate(counts.tolist()):
                if c <= 0:
                    continue
                h = (math.log10(c + 1) if self._log else c) / scale * (plot.height() - 2)
                h = max(h, 1.5)
                x0 = plot.left() + i * bar_w
                centre = (self._edges[i] + self._edges[i + 1]) / 2
                colour = ACCENT if centre >= self._threshold else IDLE
                p.fillRect(QRectF(x0 + 0.5, plot.bottom() - h, max(1.0, bar_w - 1.0), h), colour)
            p.setPen(muted)
            for value in y_ticks(top, self._log):
                frac = (math.log10(value + 1) / scale) if self._log else value / scale
                y = plot.bottom() - frac * (plot.height() - 2)
                p.drawLine(QPointF(plot.left() - 3, y), QPointF(plot.left(), y))
                p.drawText(QRectF(0, y - fm.height() / 2, plot.left() - 4, fm.height()),
                           Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                           QLocale().toString(value))
            p.drawText(QRectF(plot.left() + 4, 0, plot.width() / 2, plot.top() - 2),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom,
                       self.tr("Pairs (log scale)") if self._log else self.tr("Pairs"))
        else:
            p.setPen(muted)
            p.drawText(plot, Qt.AlignmentFlag.AlignCenter,
                       self.tr("No pairs yet: scan some folders") if not counts.size
                       else self.tr("No two files are similar enough to show here"))

        # axes and ticks every 10 %
        p.setPen(QPen(muted, 1))
        p.drawLine(QPointF(plot.left(), plot.bottom()), QPointF(plot.right(), plot.bottom()))
        p.drawLine(QPointF(plot.left(), plot.top()), QPointF(plot.left(), plot.bottom()))
        first = math.ceil(lo * 10 - 1e-9)
        for k in range(first, 11):
            v = k / 10
            x = self._x(v, plot)
            p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 3))
            w = fm.horizontalAdvance("100%") + 4
            p.drawText(QRectF(x - w / 2, plot.bottom() + 3, w, fm.height()),
                       Qt.AlignmentFlag.AlignHCenter, f"{k * 10}%")
        # under the tick labels, never over the bars (the tallest are often at 100 %)
        p.drawText(QRectF(plot.left(), plot.bottom() + 3 + fm.height(), plot.width(),
                          fm.height()), Qt.AlignmentFlag.AlignHCenter, self.tr("Similarity"))
        p.drawText(QRectF(0, plot.bottom() - fm.height() / 2, plot.left() - 4, fm.height()),
                   Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, "0")

        if self._exact:
            p.setPen(muted)
            p.drawText(QRectF(plot.left(), 0, plot.width(), plot.top() - 2),
                       Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom,
                       self.tr("+ %Ln exact-copy pairs", "", self._exact))

        # the cut
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(QPen(CUT, 2))
        p.drawLine(QPointF(cut_x, plot.top() - 2), QPointF(cut_x, plot.bottom()))
        p.end()


def y_ticks(top: int, log: bool) -> list[int]:
    """The counts the y axis marks: powers of ten up to ``top`` on the log scale, else the top
    and its half (whole numbers), so a reader can tell a bar of 3 from one of 3,000."""
    if top <= 0:
        return []
    if log:
        ticks = [10 ** k for k in range(int(math.log10(top)) + 1)]
        return ticks if ticks[-1] == top else [*ticks, top]
    return [top // 2, top] if top >= 2 else [top]
