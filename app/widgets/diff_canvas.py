"""The compare view's canvas: both sides of every row, laid out, painted and selectable.

Why one custom-painted canvas instead of two QPlainTextEdits: a text line's height in Qt depends
on the fonts it falls back to (with DejaVu as the UI font, a Latin or blank line is 17 px, a
Chinese one 18 px, a mixed one 22 px, and QPlainTextEdit ignores fixed line heights), so two
editors drift apart wherever one side has Chinese and the other a blank filler line. Here
every row has one height for both sides, so alignment holds by construction, in both palettes
and with word wrap on: a wrapped row is as tall as its longer side, and the shorter side gets
blank space. One canvas also means vertical and horizontal scrolling are shared, never
synchronised after the fact.

Loading is cheap whatever the length: :meth:`DiffView.set_diff` stores the rows and a numpy
array of row tops; text layouts are made only for rows being painted (and cached). Computing
the diff is the slow part, so :func:`build_diff` is Qt-free and the main window may run it in a
worker thread and hand the result to :meth:`DiffView.set_diff`.

One class because the layout (row tops, measured heights), the painting and the mouse
selection share the same row geometry and its caches; split, each part would reach into
the others' state.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetricsF,
    QGuiApplication,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QTextCharFormat,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QMenu,
    QSizePolicy,
    QWidget,
)

from neardup_core.diff import DiffRow

from .diff_rows import LEFT, RIGHT, ChangeBlock, DiffColors, row_number, row_text

LAYOUT_CACHE = 3000  # text layouts kept; a screen shows at most a few hundred


class DiffCanvas(QAbstractScrollArea):
    """Paints both sides of every row; rows share one height so they always line up."""

    rowClicked = Signal(int)
    viewChanged = Signal()

    MID = 18  # the strip between the sides that ties changed rows together
    PAD = 6   # space between the gutter and the text

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: tuple[DiffRow, ...] = ()
        self._heights = np.zeros(0, np.int64)  # in lines
        self._tops = np.zeros(1, np.int64)     # pixels, len(rows) + 1
        self._wrap = False
        self._cache: OrderedDict[tuple[int, int], QTextLayout] = OrderedDict()
        self._natural = [0.0, 0.0]             # widest text seen on each side (no wrap)
        self._digits = [1, 1]
        self._current: ChangeBlock | None = None
        self._sel: tuple[int, tuple[int, int], tuple[int, int]] | None = None
        self._focus_side = LEFT
        self._laid_out_width = -1
        self._colors = DiffColors.for_palette(self.palette())
        self._metrics()
        self._measured = np.zeros(0, bool)
        self._chars: list[np.ndarray] = []
        self._wide_chars: list[np.ndarray] = []
        self._measure_timer = QTimer(self, singleShot=True, interval=0)
        # scroll ranges found while painting are applied after the paint, by a timer that
        # dies with the canvas
        self._ranges_timer = QTimer(self, singleShot=True, interval=0)
        self._ranges_timer.timeout.connect(self._update_scrollbars)
        self._measure_timer.timeout.connect(self._measure_some)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.viewport().setCursor(Qt.CursorShape.IBeamCursor)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    # -- data -------------------------------------------------------------------------------
    def set_rows(self, rows: tuple[DiffRow, ...]) -> None:
        self._rows = rows
        self._cache.clear()
        self._sel = None
        self._current = None
        self._digits = [len(str(max((n for r in rows if (n := row_number(r, s)) is not None),
                                    default=1))) for s in (LEFT, RIGHT)]
        self._natural = [self._estimate_width(s) for s in (LEFT, RIGHT)]
        self._text_stats()
        self._tops = np.zeros(1, np.int64)  # forget the old rows' positions
        self._relayout()
        self.verticalScrollBar().setValue(0)
        self.horizontalScrollBar().setValue(0)

    def rows(self) -> tuple[DiffRow, ...]:
        return self._rows

    def set_wrap(self, on: bool) -> None:
        if on == self._wrap:
            return
        top = self.row_at(0)
        self._wrap = on
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff if on
                                          else Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self._cache.clear()
        self._relayout()
        if self._rows:
            self.verticalScrollBar().setValue(int(self._tops[top]))

    def wrap(self) -> bool:
        return self._wrap

    def set_current(self, block: ChangeBlock | None) -> None:
        self._current = block
        self.viewport().update()

    def current(self) -> ChangeBlock | None:
        return self._current

    # -- geometry ---------------------------------------------------------------------------
    def line_height(self) -> int:
        return self._line_h

    def row_top(self, row: int) -> int:
        """Top of ``row`` in content pixels (the same on both sides)."""
        return int(self._tops[row])

    def row_height(self, row: int) -> int:
        return int(self._tops[row + 1] - self._tops[row])

    def tops(self) -> np.ndarray:
        """Row tops in content pixels, one more than there are rows (read-only view)."""
        v = self._tops.view()
        v.flags.writeable = False
        return v

    def content_height(self) -> int:
        return int(self._tops[-1])

    def row_at(self, y: float) -> int:
        """The row at viewport ``y`` (clamped to the rows there are)."""
        if not self._rows:
            return 0
        yy = y + self.verticalScrollBar().value()
        r = int(np.searchsorted(self._tops, yy, side="right")) - 1
        return min(max(r, 0), len(self._rows) - 1)

    def side_width(self) -> int:
        return max(0, (self.viewport().width() - self.MID) // 2)

    def side_x(self, side: int) -> int:
        return 0 if side == LEFT else self.side_width() + self.MID

    def gutter_width(self, side: int) -> int:
        return int(self._digit_w * self._digits[side]) + 10

    def text_x(self, side: int) -> int:
        return self.side_x(side) + self.gutter_width(side) + self.PAD

    def text_width(self, side: int) -> int:
        return max(20, self.side_width() - self.gutter_width(side) - self.PAD - 4)

    def scroll_to_row(self, row: int, where: float = 0.25) -> None:
        """Scroll so ``row`` sits ``where`` of the way down the viewport (if it can)."""
        vh = self.viewport().height()
        self.verticalScrollBar().setValue(int(self._tops[row] - vh * where))

    def reveal_change_x(self, row: int) -> None:
        """Scroll sideways so the first changed characters of ``row`` are on screen (no wrap):
        a change at column 300 of a long line must not stay off to the right (issue 21)."""
        if self._wrap or not 0 <= row < len(self._rows):
            return
        r = self._rows[row]
        hsb = self.horizontalScrollBar()
        self._update_scrollbars()
        xs = []
        for side, spans in ((LEFT, r.left_spans), (RIGHT, r.right_spans)):
            text = row_text(r, side)
            if not text:
                continue
            start = spans[0].start if spans else 0
            xs.append(self._layout(side, row).lineAt(0).cursorToX(start)[0])
        if not xs:
            hsb.setValue(0)
            return
        x = min(xs)
        page = self.text_width(LEFT)
        value = hsb.value()
        if x < value or x > value + page - 4 * self._digit_w:
            # the change a quarter of the way in, so what leads up to it shows too
            self._update_scrollbars()
            hsb.setValue(max(0, int(x - page / 4)))

    def scroll_to_content_y(self, y: float) -> None:
        self.verticalScrollBar().setValue(int(y - self.viewport().height() / 2))

    # -- metrics and layout -----------------------------------------------------------------
    def _metrics(self) -> None:
        font = self.font()
        fm = QFontMetricsF(font)
        # a line's height depends on its fallback fonts: measure one with CJK and emoji in it
        probe = QTextLayout("Ag近ア한😀", font)
        probe.beginLayout()
        line = probe.createLine()
        line.setLineWidth(1e6)
        probe.endLayout()
        asc = max(fm.ascent(), line.ascent())
        desc = max(fm.descent(), line.descent())
        self._line_h = math.ceil(asc + desc) + 3
        self._baseline = (self._line_h - (asc + desc)) / 2 + asc
        self._digit_w = fm.horizontalAdvance("0")
        self._space_w = fm.horizontalAdvance(" ")
        self._wide_w = max(fm.horizontalAdvance("中"), fm.horizontalAdvance("\U0001F600"))
        self._narrow_w = fm.averageCharWidth()
        # no line of n characters is wider than n of these: a safe "fits on one line" test
        self._wide = max(fm.horizontalAdvance("W"), fm.horizontalAdvance("@"), self._wide_w) * 1.1
        opt = QTextOption()
        opt.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        opt.setTabStopDistance(8 * self._space_w)
        self._counter = QTextLayout("", font)
        self._counter.setTextOption(opt)

    def _estimate_width(self, side: int) -> float:
        """Widest text on a side, measured on the longest rows only (a guess refined in paint)."""
        if not self._rows:
            return 0.0
        texts = [row_text(r, side) or "" for r in self._rows]
        chars = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
        wide = np.fromiter((len(t.encode("utf-8", "surrogatepass")) for t in texts),
                           dtype=np.int64, count=len(texts))
        k = min(48, len(texts))
        pick = set(np.argpartition(-chars, k - 1)[:k].tolist())
        pick |= set(np.argpartition(-wide, k - 1)[:k].tolist())
        fm = QFontMetricsF(self.font())
        tab = 8 * self._space_w
        return max((fm.horizontalAdvance(texts[i]) + texts[i].count("\t") * tab for i in pick),
                   default=0.0)

    def _relayout(self) -> None:
        """Row heights for the wrap mode and width, keeping the top row where it was.

        Without wrap every row is one line. With wrap a row is as tall as its longer side, and
        exact counts need text shaping (about 50 µs a row), so rows start from an estimate,
        rows on screen are measured just before they are painted, and the rest are measured in
        the background a few milliseconds at a time; rows above the view that change height
        move the scroll position with them, so what is on screen stays put.
        """
        n = len(self._rows)
        vsb = self.verticalScrollBar()
        keep = None
        if n and len(self._tops) == n + 1:
            top = self.row_at(0)
            keep = (top, vsb.value() - int(self._tops[top]))
        if self._wrap and n:
            self._heights = self._estimate_lines()
            self._measured = np.zeros(n, bool)
        else:
            self._heights = np.ones(n, np.int64)
            self._measured = np.ones(n, bool)
        self._retop()
        self._laid_out_width = self.viewport().width()
        self._update_scrollbars()
        if keep is not None:
            top, off = keep
            vsb.setValue(int(self._tops[top]) + min(off, self.row_height(top) - 1))
        if not self._measured.all():
            self._measure_timer.start()
        self.viewport().update()
        self.viewChanged.emit()

    def _retop(self) -> None:
        self._tops = np.zeros(len(self._heights) + 1, np.int64)
        np.cumsum(self._heights * self._line_h, out=self._tops[1:])

    def _text_stats(self) -> None:
        """Per side: characters and "wide" characters (CJK, emoji) of each row, for estimates."""
        self._chars = []
        self._wide_chars = []
        for side in (LEFT, RIGHT):
            texts = [row_text(r, side) or "" for r in self._rows]
            n = len(texts)
            chars = np.fromiter(map(len, texts), dtype=np.int64, count=n)
            u8 = np.fromiter((len(t.encode("utf-8", "surrogatepass")) for t in texts),
                             dtype=np.int64, count=n)
            self._chars.append(chars)
            self._wide_chars.append(np.clip((u8 - chars) // 2, 0, chars))

    def _estimate_lines(self) -> np.ndarray:
        est = np.ones(len(self._rows), np.int64)
        for side in (LEFT, RIGHT):
            wide = self._wide_chars[side]
            px = wide * self._wide_w + (self._chars[side] - wide) * self._narrow_w
            est = np.maximum(est, np.ceil(px / self.text_width(side)).astype(np.int64))
        return est

    def _exact_lines(self, side: int, row: int, cached: bool) -> int:
        text = row_text(self._rows[row], side)
        width = self.text_width(side)
        if not text or ("\t" not in text and len(text) * self._wide <= width):
            return 1
        if cached:
            return self._layout(side, row).lineCount()
        lay = self._counter  # one reusable layout: background measuring must not churn the cache
        lay.setText(text)
        lay.beginLayout()
        lines = 0
        while True:
            line = lay.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            lines += 1
        lay.endLayout()
        return lines

    def _measure(self, rows: list[int], cached: bool) -> int:
        """Measure ``rows`` exactly; return how many lines rows above the view gained."""
        top = self.row_at(0)
        above = 0
        for i in rows:
            h = max(self._exact_lines(LEFT, i, cached), self._exact_lines(RIGHT, i, cached))
            if i < top:
                above += h - int(self._heights[i])
            self._heights[i] = h
            self._measured[i] = True
        return above

    def _measure_visible(self) -> bool:
        """Measure the rows on screen (they do not move the top row); True if any changed."""
        changed = False
        vh = self.viewport().height()
        for _ in range(8):  # new heights can bring more rows into view
            first, last = self.row_at(0), self.row_at(vh)
            todo = first + np.flatnonzero(~self._measured[first:last + 1])
            if not todo.size:
                break
            self._measure(todo.tolist(), cached=True)
            self._retop()
            changed = True
        return changed

    def _measure_some(self) -> None:
        """Background step: measure rows nearest the view for ~15 ms, then yield."""
        if not self._wrap or self._measured.all():
            return
        todo = np.flatnonzero(~self._measured)
        top = self.row_at(0)
        order = np.concatenate([todo[todo >= top], todo[todo < top][::-1]])
        deadline = time.perf_counter() + 0.015
        gained = 0
        for k in range(0, order.size, 32):
            gained += self._measure(order[k:k + 32].tolist(), cached=False)
            if time.perf_counter() > deadline:
                break
        vsb = self.verticalScrollBar()
        value = vsb.value()
        self._retop()
        self._update_scrollbars()
        if gained:
            vsb.setValue(value + gained * self._line_h)
        self.viewport().update()
        self.viewChanged.emit()
        if not self._measured.all():
            self._measure_timer.start()

    def finish_layout(self) -> None:
        """Measure every row now (tests, printing); normally this happens in the background."""
        while self._wrap and not self._measured.all():
            self._measure_some()

    def _update_scrollbars(self) -> None:
        vh = self.viewport().height()
        vsb = self.verticalScrollBar()
        vsb.setRange(0, max(0, self.content_height() - vh))
        vsb.setPageStep(max(1, vh))
        vsb.setSingleStep(self._line_h)
        hsb = self.horizontalScrollBar()
        if self._wrap:
            hsb.setRange(0, 0)
        else:
            over = max(self._natural[s] + 8 - self.text_width(s) for s in (LEFT, RIGHT))
            hsb.setRange(0, max(0, math.ceil(over)))
            hsb.setPageStep(max(1, self.text_width(LEFT)))
            hsb.setSingleStep(max(1, int(self._digit_w * 4)))

    def _layout(self, side: int, row: int) -> QTextLayout:
        key = (side, row)
        lay = self._cache.get(key)
        if lay is not None:
            self._cache.move_to_end(key)
            return lay
        r = self._rows[row]
        text = row_text(r, side) or ""
        lay = QTextLayout(text, self.font())
        opt = QTextOption()
        opt.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere if self._wrap
                        else QTextOption.WrapMode.NoWrap)
        opt.setTabStopDistance(8 * self._space_w)
        lay.setTextOption(opt)
        lay.setFormats(self.row_formats(side, row))
        lay.setCacheEnabled(True)
        width = self.text_width(side) if self._wrap else 1e7
        lay.beginLayout()
        i = 0
        while True:
            line = lay.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            line.setPosition(QPointF(0, i * self._line_h + self._baseline - line.ascent()))
            i += 1
        lay.endLayout()
        if not self._wrap and text:
            w = lay.lineAt(0).naturalTextWidth()
            if w > self._natural[side]:
                self._natural[side] = w
                self._ranges_timer.start()
        self._cache[key] = lay
        if len(self._cache) > LAYOUT_CACHE:
            self._cache.popitem(last=False)
        return lay

    def row_formats(self, side: int, row: int) -> list[QTextLayout.FormatRange]:
        """The changed characters of a replaced row, as the formats painted behind them."""
        r = self._rows[row]
        spans = r.left_spans if side == LEFT else r.right_spans
        if r.kind != "replace" or not spans:
            return []
        fmt = QTextCharFormat()
        fmt.setBackground(self._colors.strong(r.kind))
        out = []
        for sp in spans:
            fr = QTextLayout.FormatRange()
            fr.start, fr.length, fr.format = sp.start, sp.end - sp.start, fmt
            out.append(fr)
        return out

    def row_background(self, side: int, row: int) -> QColor | None:
        """The tint behind a row's text (None for equal rows and for filler)."""
        r = self._rows[row]
        if r.kind == "equal" or row_text(r, side) is None:
            return None
        return self._colors.row(r.kind)

    def colors(self) -> DiffColors:
        return self._colors

    # -- painting ---------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        if self._wrap and self._rows and self._measure_visible():
            self._ranges_timer.start()
            self.viewChanged.emit()
        p = QPainter(self.viewport())
        c = self._colors
        p.fillRect(event.rect(), c.base)
        vh = self.viewport().height()
        vw = self.viewport().width()
        y0 = self.verticalScrollBar().value()
        for side in (LEFT, RIGHT):
            p.fillRect(QRect(self.side_x(side), 0, self.gutter_width(side), vh), c.gutter)
        if self._rows:
            first = self.row_at(0)
            for row in range(first, len(self._rows)):
                top = int(self._tops[row]) - y0
                if top >= vh:
                    break
                h = int(self._tops[row + 1] - self._tops[row])
                r = self._rows[row]
                if r.kind != "equal":
                    p.fillRect(QRect(self.side_width(), top, self.MID, h), c.row(r.kind))
                for side in (LEFT, RIGHT):
                    self._paint_cell(p, side, row, top, h)
        p.setClipping(False)
        pen = QPen(c.gutter_text)
        pen.setWidth(1)
        p.setPen(pen)
        for x in (self.side_width(), self.side_width() + self.MID - 1):
            p.drawLine(x, 0, x, vh)
        if self._current is not None:
            top = int(self._tops[self._current.start]) - y0
            bottom = int(self._tops[self._current.end]) - y0
            if bottom >= 0 and top <= vh:
                pen = QPen(c.current)
                pen.setWidth(2)
                p.setPen(pen)
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(QRect(1, top, vw - 3, max(bottom - top, 2) - 1))
        p.end()

    def _paint_cell(self, p: QPainter, side: int, row: int, top: int, h: int) -> None:
        c = self._colors
        r = self._rows[row]
        text = row_text(r, side)
        sx, gw = self.side_x(side), self.gutter_width(side)
        area = QRect(sx + gw, top, self.side_width() - gw, h)
        p.setClipRect(QRect(sx, top, self.side_width(), h))
        if r.kind != "equal":
            if text is None:
                p.fillRect(area, QBrush(c.filler, Qt.BrushStyle.BDiagPattern))
            else:
                p.fillRect(area, c.row(r.kind))
                p.fillRect(QRect(sx, top, gw, h), c.strong(r.kind))
        no = row_number(r, side)
        if no is not None and not (row and row_number(self._rows[row - 1], side) == no):
            p.setPen(c.gutter_text)
            p.drawText(QRectF(sx, top, gw - 5, self._line_h),
                       Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, str(no))
        if text:
            tx = self.text_x(side)
            p.setClipRect(QRect(tx - 2, top, self.side_width() - gw - self.PAD + 2, h))
            p.setPen(self.palette().color(QPalette.ColorRole.Text))
            hoff = self.horizontalScrollBar().value()
            self._layout(side, row).draw(p, QPointF(tx - hoff, top),
                                         self._selection_formats(side, row, len(text)))

    def _selection_formats(self, side: int, row: int, length: int
                           ) -> list[QTextLayout.FormatRange]:
        rng = self._selection_range(side)
        if rng is None or not rng[0][0] <= row <= rng[1][0]:
            return []
        (r0, p0), (r1, p1) = rng
        start = p0 if row == r0 else 0
        end = p1 if row == r1 else length
        if end <= start:
            return []
        fmt = QTextCharFormat()
        fmt.setBackground(self.palette().color(QPalette.ColorRole.Highlight))
        fmt.setForeground(self.palette().color(QPalette.ColorRole.HighlightedText))
        fr = QTextLayout.FormatRange()
        fr.start, fr.length, fr.format = start, end - start, fmt
        return [fr]

    # -- selection and copy -----------------------------------------------------------------
    def _selection_range(self, side: int) -> tuple[tuple[int, int], tuple[int, int]] | None:
        if self._sel is None or self._sel[0] != side:
            return None
        a, b = self._sel[1], self._sel[2]
        return (a, b) if a <= b else (b, a)

    def _hit(self, pos: QPointF) -> tuple[int, int, int] | None:
        """(side, row, character position) under a viewport point, None in the middle strip."""
        if not self._rows:
            return None
        x = pos.x()
        if x < self.side_width():
            side = LEFT
        elif x >= self.side_width() + self.MID:
            side = RIGHT
        else:
            return None
        row = self.row_at(pos.y())
        text = row_text(self._rows[row], side)
        if not text:
            return side, row, 0
        lay = self._layout(side, row)
        local = pos.y() + self.verticalScrollBar().value() - self._tops[row]
        line = lay.lineAt(min(max(int(local // self._line_h), 0), lay.lineCount() - 1))
        if pos.y() + self.verticalScrollBar().value() >= self._tops[-1]:
            return side, row, len(text)
        x_in = x - self.text_x(side) + self.horizontalScrollBar().value()
        return side, row, int(line.xToCursor(x_in))

    def select_all(self, side: int | None = None) -> None:
        side = self._focus_side if side is None else side
        last = max((i for i, r in enumerate(self._rows) if row_text(r, side) is not None),
                   default=None)
        if last is None:
            self._sel = None
        else:
            self._sel = (side, (0, 0), (last, len(row_text(self._rows[last], side) or "")))
        self.viewport().update()

    def selected_text(self) -> str:
        """The selection on one side; rows cut from one long line are joined back together."""
        if self._sel is None:
            return ""
        side = self._sel[0]
        (r0, p0), (r1, p1) = self._selection_range(side) or ((0, 0), (0, 0))
        pieces: list[str] = []
        prev = None
        for row in range(r0, r1 + 1):
            r = self._rows[row]
            text = row_text(r, side)
            if text is None:
                continue
            piece = text[(p0 if row == r0 else 0):(p1 if row == r1 else len(text))]
            no = row_number(r, side)
            if pieces and no == prev:
                pieces[-1] += piece
            else:
                pieces.append(piece)
            prev = no
        return "\n".join(pieces)

    def copy(self) -> None:
        text = self.selected_text()
        if text:
            QGuiApplication.clipboard().setText(text)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        hit = self._hit(event.position())
        if hit is None:
            return
        side, row, pos = hit
        self._focus_side = side
        if (event.modifiers() & Qt.KeyboardModifier.ShiftModifier and self._sel
                and self._sel[0] == side):
            self._sel = (side, self._sel[1], (row, pos))
        else:
            self._sel = (side, (row, pos), (row, pos))
        self.rowClicked.emit(row)
        self.viewport().update()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if not event.buttons() & Qt.MouseButton.LeftButton or self._sel is None:
            return
        side = self._sel[0]
        pos = QPointF(event.position())
        vh = self.viewport().height()
        if pos.y() < 0:
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - self._line_h)
        elif pos.y() > vh:
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() + self._line_h)
        pos.setY(min(max(pos.y(), 0.0), vh - 1.0))
        pos.setX(min(max(pos.x(), self.side_x(side) + 1.0),
                     self.side_x(side) + self.side_width() - 1.0))
        hit = self._hit(pos)
        if hit is not None:
            self._sel = (side, self._sel[1], (hit[1], hit[2]))
            self.viewport().update()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        hit = self._hit(event.position())
        if hit is None:
            return
        side, row, _ = hit
        text = row_text(self._rows[row], side)
        if text is not None:
            self._sel = (side, (row, 0), (row, len(text)))
            self.viewport().update()

    def keyPressEvent(self, event) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy()
        elif event.matches(QKeySequence.StandardKey.SelectAll):
            self.select_all()
        elif event.matches(QKeySequence.StandardKey.MoveToStartOfDocument):
            self.verticalScrollBar().setValue(0)
        elif event.matches(QKeySequence.StandardKey.MoveToEndOfDocument):
            self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        else:
            super().keyPressEvent(event)

    def contextMenuEvent(self, event) -> None:
        hit = self._hit(QPointF(event.pos()))
        if hit is not None:
            self._focus_side = hit[0]
        menu = QMenu(self)
        act = menu.addAction(self.tr("Copy"), self.copy)
        act.setEnabled(bool(self.selected_text()))
        menu.addAction(self.tr("Select all on the left"), lambda: self.select_all(LEFT))
        menu.addAction(self.tr("Select all on the right"), lambda: self.select_all(RIGHT))
        menu.exec(event.globalPos())

    # -- events -----------------------------------------------------------------------------
    def scrollContentsBy(self, dx: int, dy: int) -> None:
        self.viewport().update()
        self.viewChanged.emit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._wrap and self.viewport().width() != self._laid_out_width:
            self._cache.clear()
            self._relayout()
        self._update_scrollbars()
        self.viewChanged.emit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange,
                            QEvent.Type.StyleChange):
            self._colors = DiffColors.for_palette(self.palette())
            self._metrics()
            self._cache.clear()
            self._natural = [self._estimate_width(s) for s in (LEFT, RIGHT)]
            self._relayout()

    def sizeHint(self) -> QSize:
        return QSize(800, 500)
