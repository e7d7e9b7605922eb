"""Excerpts as a table: the part, the whole it lies in, how much of it, and how alike they are.

Kept apart from the groups' tree on purpose: an excerpt is not a copy, so it has no checkbox and
nothing that marks files ("mark all but reference") ever reaches it.

The model sorts itself (:meth:`ExcerptsModel.sort`, a NumPy sort of a column; see
:mod:`.own_sort`): the excerpts are reset at every threshold move (an excerpt whose two files
come into one group is no longer listed), and a sort proxy sorting again then took 1.2 s of a
frozen window per move at 200,000 files, 47,000 excerpts.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from neardup_core.models import Document, ExcerptTable
from neardup_core.result import ScanResult
from neardup_core.visible import visible

from .own_sort import reorder

Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


class ExcerptsModel(QAbstractTableModel):
    """The excerpts of a result at a containment cut (rows most contained first)."""

    PART, WHOLE, CONTAINMENT, SIMILARITY = range(4)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._docs: tuple[Document, ...] = ()
        self._table = ExcerptTable.empty()
        self._order = np.empty(0, dtype=np.int64)  # row -> row of the table, as sorted
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._headers = (self.tr("Part"), self.tr("Inside"), self.tr("Contained"),
                         self.tr("Similarity"))

    def set_result(self, result: ScanResult | None, cut: float | None = None) -> bool:
        """Show ``result``'s excerpts at ``cut`` (default: the scan's); None clears. Returns
        whether the rows changed: the same excerpts of the same documents (a threshold move
        that brings no excerpt's two files into one group) keep the rows, the selection and
        the pair shown."""
        if result is None or result.options.excerpt_containment is None:
            docs, table = (), ExcerptTable.empty()
        else:
            docs, table = result.documents, result.excerpts(cut)
        if docs is self._docs and _same(table, self._table):
            return False
        self.beginResetModel()
        self._docs, self._table = docs, table
        self._order = self._sorted()
        self.endResetModel()
        return True

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Rows by ``column`` (names without case, shares as numbers), ties in the order the
        core gives (most contained first), as a stable sort does; kept for later results."""
        if not 0 <= column < 4:
            return
        self._sort = (column, order)
        self._order = reorder(self, self._order, self._sorted)  # the selection follows

    def _sorted(self) -> np.ndarray:
        t = self._table
        if self._sort is None or not len(t):
            return np.arange(len(t), dtype=np.int64)
        column, order = self._sort
        if column in (self.PART, self.WHOLE):
            docs = self._docs
            which = t.part if column == self.PART else t.whole
            names = np.array([docs[i].name.lower() for i in which.tolist()], dtype=object)
            _, key = np.unique(names, return_inverse=True)  # names ranked: a number each
            key = key.ravel().astype(np.int64)
        else:
            key = (t.containment if column == self.CONTAINMENT else t.similarity
                   ).astype(np.float64)
        if order == Qt.SortOrder.DescendingOrder:
            key = -key
        return np.argsort(key, kind="stable")

    def excerpt(self, row: int) -> tuple[Document, Document, float, float]:
        """(part, whole, containment, similarity) of a row (as the rows are sorted)."""
        t = self._table
        i = int(self._order[row])
        return (self._docs[int(t.part[i])], self._docs[int(t.whole[i])],
                float(t.containment[i]), float(t.similarity[i]))

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
        if role == Qt.ItemDataRole.TextAlignmentRole and col >= self.CONTAINMENT:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


def _same(a: ExcerptTable, b: ExcerptTable) -> bool:
    return all(np.array_equal(x, y) for x, y in ((a.part, b.part), (a.whole, b.whole),
                                                  (a.containment, b.containment),
                                                  (a.similarity, b.similarity)))
