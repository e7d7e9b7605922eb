"""Excerpts as a table: the part, the whole it lies in, how much of it, and how alike they are.

Kept apart from the groups' tree on purpose: an excerpt is not a copy, so it has no checkbox and
nothing that marks files ("mark all but reference") ever reaches it.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from neardup_core.models import Document, ExcerptTable
from neardup_core.result import ScanResult
from neardup_core.visible import visible

Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


class ExcerptsModel(QAbstractTableModel):
    """The excerpts of a result at a containment cut (rows most contained first)."""

    PART, WHOLE, CONTAINMENT, SIMILARITY = range(4)
    SORT_ROLE = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._docs: tuple[Document, ...] = ()
        self._table = ExcerptTable.empty()
        self._headers = (self.tr("Part"), self.tr("Inside"), self.tr("Contained"),
                         self.tr("Similarity"))

    def set_result(self, result: ScanResult | None, cut: float | None = None) -> None:
        """Show ``result``'s excerpts at ``cut`` (default: the scan's); None clears."""
        self.beginResetModel()
        if result is None or result.options.excerpt_containment is None:
            self._docs, self._table = (), ExcerptTable.empty()
        else:
            self._docs, self._table = result.documents, result.excerpts(cut)
        self.endResetModel()

    def excerpt(self, row: int) -> tuple[Document, Document, float, float]:
        """(part, whole, containment, similarity) of a row."""
        t = self._table
        return (self._docs[int(t.part[row])], self._docs[int(t.whole[row])],
                float(t.containment[row]), float(t.similarity[row]))

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._table)

    def columnCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else 4

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if (role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal
                and 0 <= section < 4):
            return self._headers[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self._table):
            return None
        part, whole, c, s = self.excerpt(index.row())
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == self.PART:
                return visible(part.name)
            if col == self.WHOLE:
                return visible(whole.name)
            return f"{(c if col == self.CONTAINMENT else s):.0%}"
        if role == Qt.ItemDataRole.ToolTipRole:
            if col in (self.PART, self.WHOLE):
                return visible((part if col == self.PART else whole).path)
            return self.tr("{share} of {part} lies inside {whole}").format(
                share=f"{c:.1%}", part=visible(part.name), whole=visible(whole.name))
        if role == self.SORT_ROLE:
            return (part.name.lower(), whole.name.lower(), c, s)[col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col >= self.CONTAINMENT:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
