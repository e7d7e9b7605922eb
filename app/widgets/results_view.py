"""The tree view for groups: keyboard marking, a context menu hook, and fixed-height rows.

Uniform row heights let Qt skip measuring rows, which keeps 10,000 groups smooth; no row has a
widget of its own.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeView, QWidget

# Default widths of the columns (name, folder, size, modified, format, similarity, distance).
COLUMN_WIDTHS = (250, 250, 72, 128, 116, 84, 110)


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
        self.header().setStretchLastSection(False)
        self.header().setSectionsMovable(True)
        self.doubleClicked.connect(lambda _i: self.openRequested.emit())

    def apply_default_widths(self) -> None:
        for col, w in enumerate(COLUMN_WIDTHS):
            self.setColumnWidth(col, w)
        # the folder column takes up the slack, so the numbers on the right are never cut
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)

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
