"""Finding one's way in the compare view: the change map beside the canvas (click or drag to
jump to a change) and the title bar naming the two files above their columns.
"""

from __future__ import annotations

import math
import os

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QToolTip,
    QWidget,
)

from neardup_core.visible import visible

from .diff_canvas import DiffCanvas
from .diff_rows import LEFT, RIGHT, ChangeBlock

# -- the change map, the titles ---------------------------------------------------------------


class ChangeMap(QWidget):
    """A thin map of the whole diff beside the scrollbar; clicking jumps there."""

    changeClicked = Signal(int)  # index of a change block (0-based)
    jump = Signal(float)         # a content y, in canvas pixels, away from any change

    def __init__(self, canvas: DiffCanvas, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._canvas = canvas
        self._blocks: tuple[ChangeBlock, ...] = ()
        self._starts = self._ends = np.zeros(0, np.int64)
        self._kinds: list[str] = []
        self.setFixedWidth(12)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(self.tr("Changes in the whole text; click to go there"))
        canvas.viewChanged.connect(self.update)

    def set_blocks(self, blocks: tuple[ChangeBlock, ...]) -> None:
        self._blocks = blocks
        self._starts = np.array([b.start for b in blocks], np.int64)
        self._ends = np.array([b.end for b in blocks], np.int64)
        self._kinds = [b.kind for b in blocks]
        self.update()

    def _scale(self) -> float:
        total = self._canvas.content_height()
        return self.height() / total if total > 0 else 0.0

    def block_at(self, y: float) -> int | None:
        """Index of the change drawn at map ``y`` (within a few pixels), else None."""
        k = self._scale()
        if not self._blocks or not k:
            return None
        tops = self._canvas.tops()
        y1 = tops[self._starts] * k
        y2 = np.maximum(y1 + 2.0, tops[self._ends] * k)
        dist = np.where((y1 <= y) & (y <= y2), 0.0, np.minimum(abs(y - y1), abs(y - y2)))
        best = int(np.argmin(dist))
        return best if dist[best] < 4.0 else None

    def _runs(self, tops: np.ndarray, k: float) -> list[tuple[str, float, float]]:
        """Change blocks in map pixels, neighbours of one kind merged: at most ~height rects."""
        if not self._blocks:
            return []
        y1 = tops[self._starts] * k
        y2 = np.maximum(y1 + 2.0, tops[self._ends] * k)
        runs: list[tuple[str, float, float]] = []
        for kind, a, b in zip(self._kinds, y1.tolist(), y2.tolist(), strict=True):
            if runs and runs[-1][0] == kind and a <= runs[-1][2] + 0.5:
                runs[-1] = (kind, runs[-1][1], max(b, runs[-1][2]))
            else:
                runs.append((kind, a, b))
        return runs

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        c = self._canvas.colors()
        p.fillRect(self.rect(), c.gutter)
        k = self._scale()
        if k:
            tops = self._canvas.tops()
            for kind, y1, y2 in self._runs(tops, k):
                p.fillRect(QRectF(1, y1, self.width() - 2, y2 - y1), c.strong(kind))
            cur = self._canvas.current()
            if cur is not None:
                y1 = float(tops[cur.start]) * k
                y2 = max(y1 + 2.0, float(tops[cur.end]) * k)
                p.setPen(QPen(c.current, 1))
                p.drawRect(QRectF(0.5, y1 - 1, self.width() - 1.0, y2 - y1 + 2))
            vsb = self._canvas.verticalScrollBar()
            vis = QRectF(0.5, vsb.value() * k, self.width() - 1.0,
                         self._canvas.viewport().height() * k)
            col = QColor(self.palette().color(QPalette.ColorRole.Text))
            col.setAlpha(60)
            p.fillRect(vis, col)
        p.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._go(event.position().y())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._go(event.position().y())

    def _go(self, y: float) -> None:
        k = self._scale()
        if not k:
            return
        hit = self.block_at(y)
        if hit is not None:
            self.changeClicked.emit(hit)
        else:
            self.jump.emit(y / k)


class TitleBar(QWidget):
    """File names over each side, placed over the canvas halves; drawn as plain text."""

    def __init__(self, canvas: DiffCanvas, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._canvas = canvas
        self._paths = ("", "")
        fm = QFontMetricsF(self.font())
        self.setFixedHeight(math.ceil(fm.height()) + 8)
        canvas.viewChanged.connect(self.update)

    def set_paths(self, left: str, right: str) -> None:
        self._paths = (left, right)
        self.setAccessibleName(f"{visible(left)} | {visible(right)}")
        self.update()

    def paths(self) -> tuple[str, str]:
        return self._paths

    def _rect(self, side: int) -> QRect:
        origin = self.mapFromGlobal(self._canvas.viewport().mapToGlobal(QPoint(0, 0)))
        return QRect(origin.x() + self._canvas.side_x(side), 0, self._canvas.side_width(),
                     self.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        bold = QFont(self.font())
        bold.setBold(True)
        for side, path in enumerate(self._paths):
            if not path:
                continue
            r = self._rect(side).adjusted(6, 0, -6, 0)
            name, folder = visible(os.path.basename(path) or path), visible(os.path.dirname(path))
            fmb = QFontMetricsF(bold)
            shown = fmb.elidedText(name, Qt.TextElideMode.ElideMiddle, r.width())
            p.setFont(bold)
            p.setPen(self.palette().color(QPalette.ColorRole.WindowText))
            p.drawText(r, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, shown)
            rest = r.width() - fmb.horizontalAdvance(shown) - 12
            if folder and rest > 40:
                fm = QFontMetricsF(self.font())
                p.setFont(self.font())
                p.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
                p.drawText(r.adjusted(r.width() - rest, 0, 0, 0),
                           Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                           fm.elidedText(folder, Qt.TextElideMode.ElideMiddle, rest))
        p.end()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            side = LEFT if self._rect(RIGHT).left() > event.pos().x() else RIGHT
            if self._paths[side]:
                QToolTip.showText(event.globalPos(), visible(self._paths[side]), self)
            return True
        return super().event(event)
