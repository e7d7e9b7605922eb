"""The ignored pairs, to review and to stop ignoring (issue 21, item 11).

Lists every pair the user said is not a duplicate, by the names the files had when it was
ignored (a pair is kept by content, so the files may have been renamed since); removing a pair
lets its files group again, in the results on show and in the next scans.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from neardup_core.visible import visible

from ..choices import Choices


class IgnoredPairsDialog(QDialog):
    """Shows ``choices.ignored``; ``removed()`` names the pairs the user took off the list."""

    def __init__(self, choices: Choices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Ignored pairs"))
        self.resize(680, 400)
        self._removed: list[tuple[str, str]] = []
        lay = QVBoxLayout(self)
        self.intro = QLabel(self.tr(
            "These pairs of files are never grouped, in these results and in later scans. "
            "They are recognised by their content, so a renamed file keeps its place here."))
        self.intro.setWordWrap(True)
        lay.addWidget(self.intro)
        self.list = QTreeWidget()
        self.list.setRootIsDecorated(False)
        self.list.setHeaderLabels([self.tr("File"), self.tr("Not a duplicate of")])
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.header().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        for key, pair in choices.ignored.items():
            row = QTreeWidgetItem([visible(pair.name_a), visible(pair.name_b)])
            row.setData(0, Qt.ItemDataRole.UserRole, key)
            self.list.addTopLevelItem(row)
        lay.addWidget(self.list, 1)
        self.empty = QLabel(self.tr("No pairs are ignored. Use “Ignore pair” on a file in the "
                                    "results to add one."))
        self.empty.setWordWrap(True)
        self.empty.setVisible(not choices.ignored)
        lay.addWidget(self.empty)
        self.remove_button = QPushButton(self.tr("Stop ignoring"))
        self.remove_button.setEnabled(False)
        self.remove_button.clicked.connect(self.remove_selected)
        self.list.itemSelectionChanged.connect(
            lambda: self.remove_button.setEnabled(bool(self.list.selectedItems())))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.remove_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.accept)
        lay.addWidget(buttons)

    def remove_selected(self) -> None:
        for row in self.list.selectedItems():
            self._removed.append(tuple(row.data(0, Qt.ItemDataRole.UserRole)))
            self.list.takeTopLevelItem(self.list.indexOfTopLevelItem(row))
        self.empty.setVisible(self.list.topLevelItemCount() == 0)

    def removed(self) -> list[tuple[str, str]]:
        return list(self._removed)
