"""The tree view for groups: keyboard marking, a context menu hook, and fixed-height rows.

Uniform row heights let Qt skip measuring rows, which keeps 10,000 groups smooth; no row has a
widget of its own.

Groups are shown expanded. With more rows than :data:`EXPAND_ALL_ROWS`, expanding them all would
cost more than a second on every slider move (Qt lays out every expanded row, asking the model
about each one), so the groups are then expanded as they scroll into view: the same picture for
the user, at the cost of the rows on screen only. So are the groups of a result that the model
hands to the view a chunk at a time, as it scrolls (more than ``FETCH_GROUPS`` groups).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QFont, QFontMetrics, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QMenu,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QWidget,
)

from ..models.group_rows import Col
from ..models.results_model import Role

#: Default widths of the name and similarity columns; the others are measured in the tree's own
#: font (bold, as a reference row is) from the longest text they hold, so a date or a size is
#: never cut to "2026-1... 12:38", whatever the font and its size.
NAME_WIDTH, SIMILARITY_WIDTH, FOLDER_WIDTH = 190, 120, 160
#: The widest text of each measured column.
WIDEST = {Col.SIZE: "999.9 KB", Col.MODIFIED: "2026-12-31 23:59",
          Col.FORMAT: "txt · gb18030", Col.DISTANCE: "64"}
#: Shown on request only (the tree's header menu): bits of SimHash, for those who know them.
HIDDEN_BY_DEFAULT = (Col.DISTANCE,)
#: Up to this many rows (groups and members) every group is expanded at once.
EXPAND_ALL_ROWS = 20_000


class SimilarityDelegate(QStyledItemDelegate):
    """Writes "57 % · via X, 82 %" in the similarity cell of a member that is below the cut
    against its reference and in its group through another member (issue 21, item 6): the
    number stays the model's, the way in is added where the eye reads the score."""

    def initStyleOption(self, option: QStyleOptionViewItem,
                        index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        via = index.data(Role.VIA)
        if via:
            option.text = f"{option.text} · {via}"
            # cut at the end, not in the middle as names are: "82% · via 0200_科…" keeps the
            # member's own score and the way in readable ("82% …3.8%" kept neither)
            option.textElideMode = Qt.TextElideMode.ElideRight


class ResultsTree(QTreeView):
    toggleMarkRequested = Signal()
    openRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSortingEnabled(True)
        self.setAllColumnsShowFocus(True)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.setExpandsOnDoubleClick(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setIndentation(14)
        # paths and names cut in the middle: three copies in one tree differ at the end
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self._dupes_only = False
        self.expanded.connect(self._hide_reference)
        self._similarity = SimilarityDelegate(self)
        self.setItemDelegateForColumn(int(Col.SIMILARITY), self._similarity)
        self.header().setSectionsMovable(True)
        # right-click on the header: which columns to show (kept with the header's state)
        self.header().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.header().customContextMenuRequested.connect(self._column_menu)
        self.doubleClicked.connect(lambda _i: self.openRequested.emit())
        self._lazy = False          # groups expand as they come into view
        self._seen: set[int] = set()  # group rows expanded (or left collapsed) since the reset
        self.verticalScrollBar().valueChanged.connect(lambda _v: self._expand_in_view())

    def expand_groups(self) -> None:
        """Show the groups expanded: all at once, or as they scroll into view when there are
        too many rows for that (see the module docstring)."""
        model = self.model()
        self._seen.clear()
        if model is None:
            return
        total = getattr(model, "row_total", None)
        if total is not None:
            rows = total()
        else:
            groups = model.rowCount()
            rows = groups + sum(model.rowCount(model.index(g, 0)) for g in range(groups))
        # A model that hands its groups over in chunks (see ResultsModel.fetchMore) is expanded
        # as it scrolls too: expandAll would open the first chunk only.
        self._lazy = rows > EXPAND_ALL_ROWS or model.canFetchMore(QModelIndex())
        if not self._lazy:
            self.expandAll()
            for g in range(model.rowCount()):
                self._hide_reference(model.index(g, 0))
            return
        self._expand_in_view()
        self._fetch_at_end()

    def _fetch_at_end(self) -> None:
        """Ask for the next groups when the view stands at its end after a reset. Qt asks
        when the scroll bar moves to its end; a view scrolled to the end before a regroup is
        left there with the first chunk, and scrolling to the end again moved nothing, so it
        never asked (the rest of the groups out of reach until the user scrolled back up)."""
        model = self.model()
        bar = self.verticalScrollBar()
        if model is not None and bar.value() >= bar.maximum() > 0 \
                and model.canFetchMore(QModelIndex()):
            model.fetchMore(QModelIndex())

    def _expand_in_view(self) -> None:
        if not self._lazy or self.model() is None:
            return
        model = self.model()
        top = self.indexAt(QPoint(0, 0))
        while top.isValid() and top.parent().isValid():
            top = top.parent()
        first = top.row() if top.isValid() else 0
        # a group row is at least one line high: this many cover the viewport
        lines = max(1, self.viewport().height() // max(1, self.sizeHintForRow(0) or 16)) + 1
        for g in range(first, min(model.rowCount(), first + lines)):
            if g not in self._seen:
                self._seen.add(g)
                self.setExpanded(model.index(g, 0), True)

    # -- "duplicates only" (dupeGuru's "dupes only"): each group's reference row hidden ------
    def set_duplicates_only(self, on: bool) -> None:
        """Hide (or show again) every group's reference, so the list holds only what may go."""
        self._dupes_only = bool(on)
        model = self.model()
        if model is None:
            return
        for g in range(model.rowCount()):
            self._hide_reference(model.index(g, 0))

    def duplicates_only(self) -> bool:
        return self._dupes_only

    def _hide_reference(self, group: QModelIndex) -> None:
        if (group.isValid() and not group.parent().isValid()
                and self.isRowHidden(0, group) != self._dupes_only):
            self.setRowHidden(0, group, self._dupes_only)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._expand_in_view()

    def apply_default_widths(self) -> None:
        bold = QFont(self.font())
        bold.setBold(True)
        fm, header_fm = QFontMetrics(bold), self.header().fontMetrics()
        model = self.model()
        pad = 2 * self.style().pixelMetric(self.style().PixelMetric.PM_FocusFrameHMargin) + 14
        for col in Col:
            title = model.headerData(int(col), Qt.Orientation.Horizontal) if model else None
            if col == Col.FORMAT:  # its title is long; its values are short
                width = fm.horizontalAdvance(WIDEST[col]) + pad
            elif col in WIDEST:
                # wide enough for its values and for its title with the sort arrow
                width = max(fm.horizontalAdvance(WIDEST[col]) + pad,
                            header_fm.horizontalAdvance(str(title or "")) + pad + 12)
            else:
                width = {Col.NAME: NAME_WIDTH, Col.SIMILARITY: SIMILARITY_WIDTH,
                         Col.FOLDER: FOLDER_WIDTH}[col]
            self.setColumnWidth(int(col), width)
        for col in HIDDEN_BY_DEFAULT:
            self.setColumnHidden(int(col), True)
        # how alike comes right after the name: in a narrow pane it is what must not scroll
        # out of sight (the user can drag the columns elsewhere; the order is remembered)
        header = self.header()
        header.moveSection(header.visualIndex(int(Col.SIMILARITY)), 1)
        # The last column takes up the slack. The folder column keeps its width rather than
        # stretching: squeezed by the others in a narrow pane it once showed only "...".
        self.header().setStretchLastSection(True)

    def _column_menu(self, pos: QPoint) -> None:
        menu = self.column_menu()
        menu.exec(self.header().mapToGlobal(pos))

    def column_menu(self) -> QMenu:
        """A check per column to show or hide it; the name, which rows hang from, stays."""
        menu = QMenu(self)
        model = self.model()
        for col in Col:
            if col == Col.NAME or model is None:
                continue
            act = QAction(str(model.headerData(int(col), Qt.Orientation.Horizontal)), menu)
            act.setCheckable(True)
            act.setChecked(not self.isColumnHidden(int(col)))
            act.toggled.connect(lambda on, c=int(col): self.setColumnHidden(c, not on))
            menu.addAction(act)
        return menu

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.modifiers():
            self.toggleMarkRequested.emit()
            event.accept()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers():
            self.openRequested.emit()
            event.accept()
            return
        super().keyPressEvent(event)
