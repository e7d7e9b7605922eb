"""The side-by-side compare view: two aligned panes, highlighted changes, a change map.

The view puts together the canvas (``diff_canvas``), the change map and title bar
(``diff_navigation``) and the data they show (``diff_rows``), and steps through the changes.
Loading is cheap whatever the length: :meth:`DiffView.set_diff` stores the rows and a numpy
array of row tops; text layouts are made only for rows being painted (and cached).

Keys: Alt+Down or F7 = next change, Alt+Up or Shift+F7 = previous change, Ctrl+C copies the
selection, Ctrl+A selects all of the side last clicked.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QKeySequence,
    QPalette,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from neardup_core.diff import DiffResult

from .diff_canvas import DiffCanvas
from .diff_navigation import ChangeMap, TitleBar
from .diff_rows import LEFT, RIGHT, ChangeBlock, build_diff, change_blocks

__all__ = ["LEFT", "RIGHT", "DiffView", "build_diff", "change_blocks"]


# -- the view ---------------------------------------------------------------------------------


class DiffView(QWidget):
    """Meld-like side-by-side comparison of two texts, with next/previous change navigation."""

    changeIndexChanged = Signal(int, int)  # (current change, 1-based; 0 = none), total

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._diff: DiffResult | None = None
        self._blocks: tuple[ChangeBlock, ...] = ()
        self._index = 0
        self._from_row: int | None = None  # a row clicked outside any change

        self._header = QLabel(self)
        self._header.setTextFormat(Qt.TextFormat.PlainText)
        self._header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._header.setWordWrap(True)
        self._header.hide()
        self._banner = QLabel(self)
        self._banner.setTextFormat(Qt.TextFormat.PlainText)
        self._banner.setWordWrap(True)
        self._banner.setAutoFillBackground(True)
        self._banner.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self._banner.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self._banner.setContentsMargins(6, 3, 6, 3)
        self._banner.hide()

        self._canvas = DiffCanvas(self)
        self._map = ChangeMap(self._canvas, self)
        self._titles = TitleBar(self._canvas, self)

        style = self.style()
        self.previous_action = QAction(style.standardIcon(QStyle.StandardPixmap.SP_ArrowUp),
                                       self.tr("Previous change"), self)
        self.previous_action.setShortcuts([QKeySequence("Alt+Up"), QKeySequence("Shift+F7")])
        self.next_action = QAction(style.standardIcon(QStyle.StandardPixmap.SP_ArrowDown),
                                   self.tr("Next change"), self)
        self.next_action.setShortcuts([QKeySequence("Alt+Down"), QKeySequence("F7")])
        self.wrap_action = QAction(self.tr("Wrap lines"), self, checkable=True)
        self.wrap_action.setToolTip(self.tr("Wrap long lines; rows stay aligned"))
        for act, tip in ((self.previous_action, "Alt+Up, Shift+F7"),
                         (self.next_action, "Alt+Down, F7")):
            # the window's menu holds these too (View), so they work from the results tree
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            act.setToolTip(f"{act.text()} ({tip})")
            self.addAction(act)
        self.previous_action.triggered.connect(self.previous_change)
        self.next_action.triggered.connect(self.next_change)
        self.wrap_action.toggled.connect(self.set_word_wrap)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        for act in (self.previous_action, self.next_action):
            b = QToolButton(self)
            b.setDefaultAction(act)
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            b.setAutoRaise(True)
            bar.addWidget(b)
        self._position = QLabel(self)
        bar.addWidget(self._position)
        bar.addStretch(1)
        self._stats = QLabel(self)
        self._stats.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        bar.addWidget(self._stats)
        wrap = QToolButton(self)
        wrap.setDefaultAction(self.wrap_action)
        wrap.setAutoRaise(True)
        bar.addWidget(wrap)

        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(2)
        body.addWidget(self._canvas, 1)
        body.addWidget(self._map)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self._header)
        lay.addWidget(self._banner)
        lay.addLayout(bar)
        lay.addWidget(self._titles)
        lay.addLayout(body, 1)

        self._canvas.rowClicked.connect(self._on_row_clicked)
        self._map.changeClicked.connect(self._on_map_change)
        self._map.jump.connect(self._canvas.scroll_to_content_y)
        self._show_position()

    # -- public API -------------------------------------------------------------------------
    def set_pair(self, left_path: str, left_text: str, right_path: str, right_text: str, *,
                 header: str = "") -> None:
        """Compute the diff here and show it; for long texts prefer build_diff in a worker."""
        self.set_diff(left_path, right_path, build_diff(left_text, right_text), header)

    def set_diff(self, left_path: str, right_path: str, diff: DiffResult,
                 header: str = "") -> None:
        """Show a diff computed elsewhere (e.g. :func:`build_diff` in a worker thread)."""
        self._diff = diff
        self._blocks = change_blocks(diff)
        self._titles.set_paths(left_path, right_path)
        self._header.setText(header)
        self._header.setVisible(bool(header))
        banner = []
        if diff.truncated:
            banner.append(self.tr("Showing the first %Ln lines of each text; the rest was "
                                  "not compared.", "", diff.max_lines))
        if diff.coarse:
            banner.append(self.tr("Some long changed lines are marked as a whole, "
                                  "without detail."))
        self._banner.setText(" ".join(banner))
        self._banner.setVisible(bool(banner))
        st = diff.stats
        self._stats.setText(self.tr("{c} changed · {d} only left · {a} only right").format(
            c=st.changed, d=st.removed, a=st.added) if not st.identical else "")
        self._canvas.set_rows(diff.rows)
        self._map.set_blocks(self._blocks)
        self._index = 0
        self._from_row = None
        if self._blocks:
            self.go_to_change(1)
        else:
            self._canvas.set_current(None)
            self._show_position()

    def clear(self) -> None:
        self._diff = None
        self._blocks = ()
        self._index = 0
        self._from_row = None
        self._canvas.set_current(None)
        self._titles.set_paths("", "")
        self._header.clear()
        self._header.hide()
        self._banner.hide()
        self._stats.clear()
        self._canvas.set_rows(())
        self._map.set_blocks(())
        self._show_position()

    def diff(self) -> DiffResult | None:
        return self._diff

    def change_count(self) -> int:
        return len(self._blocks)

    def current_change(self) -> int:
        """1-based index of the current change, 0 when there is none."""
        return self._index

    def current_row(self) -> int | None:
        """First row of the current change (the row the view's cursor marks)."""
        return self._blocks[self._index - 1].start if self._index else None

    def next_change(self) -> None:
        """Go to the change after the current one (or after the row last clicked)."""
        k = self._next_index()
        if k is not None:
            self.go_to_change(k)

    def previous_change(self) -> None:
        k = self._previous_index()
        if k is not None:
            self.go_to_change(k)

    def go_to_change(self, index: int) -> None:
        """Make change ``index`` (1-based) current and scroll it into view."""
        if not 1 <= index <= len(self._blocks):
            raise IndexError(f"change {index} of {len(self._blocks)}")
        self._index = index
        self._from_row = None
        block = self._blocks[index - 1]
        self._canvas.set_current(block)
        self._canvas.scroll_to_row(block.start)
        self._canvas.reveal_change_x(block.start)
        self._show_position()

    def set_word_wrap(self, on: bool) -> None:
        """Wrap long lines at the pane width; a wrapped row is as tall as its longer side."""
        if self.wrap_action.isChecked() != on:
            self.wrap_action.setChecked(on)  # re-enters through toggled
            return
        self._canvas.set_wrap(on)

    def word_wrap(self) -> bool:
        return self._canvas.wrap()

    def banner_text(self) -> str:
        return self._banner.text() if self._banner.isVisibleTo(self) else ""

    def position_text(self) -> str:
        return self._position.text()

    def titles(self) -> tuple[str, str]:
        return self._titles.paths()

    def canvas(self) -> DiffCanvas:
        """The painted panes (rows, formats, selection), for the main window and tests."""
        return self._canvas

    def change_map(self) -> ChangeMap:
        return self._map

    # -- internals --------------------------------------------------------------------------
    def _next_index(self) -> int | None:
        if self._from_row is not None:
            starts = [b.start for b in self._blocks]
            k = int(np.searchsorted(starts, self._from_row, side="right")) + 1
        else:
            k = self._index + 1
        return k if k <= len(self._blocks) else None

    def _previous_index(self) -> int | None:
        if self._from_row is not None:
            ends = [b.end for b in self._blocks]
            k = int(np.searchsorted(ends, self._from_row, side="right"))
        else:
            k = self._index - 1
        return k if k >= 1 else None

    def _show_position(self) -> None:
        n = len(self._blocks)
        if self._diff is None:
            text = ""
        elif n == 0:
            text = self.tr("No differences")
        elif self._index == 0:
            text = self.tr("%Ln changes", "", n)
        else:
            loc = QLocale()
            text = self.tr("change {i} of {n}").format(i=loc.toString(self._index),
                                                       n=loc.toString(n))
        self._position.setText(text)
        self.previous_action.setEnabled(self._previous_index() is not None)
        self.next_action.setEnabled(self._next_index() is not None)
        self._map.update()
        self.changeIndexChanged.emit(self._index, n)

    def _on_row_clicked(self, row: int) -> None:
        """A click inside a change makes it current; elsewhere next/previous start from there."""
        starts = [b.start for b in self._blocks]
        k = int(np.searchsorted(starts, row, side="right"))  # changes starting at or before row
        if k and row < self._blocks[k - 1].end:
            if k != self._index:
                self._index = k
                self._from_row = None
                self._canvas.set_current(self._blocks[k - 1])
                self._show_position()
        elif self._index or self._from_row != row:
            self._index = 0
            self._from_row = row
            self._canvas.set_current(None)
            self._show_position()

    def _on_map_change(self, block: int) -> None:
        self.go_to_change(block + 1)
