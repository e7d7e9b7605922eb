"""The files a scan could not use, as a plain table (path, kind, message).

The model sorts itself (:meth:`ProblemsModel.sort`: one sort of a column's texts; see
:mod:`.own_sort`), and a result with the same problems (every threshold move) leaves it as it
is: a sort proxy sorted again at every move (50,000 problems: 4.6 s of a frozen window).
"""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

from neardup_core.models import Problem, ProblemKind
from neardup_core.visible import visible

from ..i18n import core_text
from .own_sort import reorder

Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()  # the invisible root, as a shared default argument


def kind_label(kind: ProblemKind | str) -> str:
    """The translated name of a problem kind."""
    labels = {
        ProblemKind.UNREADABLE: QCoreApplication.translate("ProblemKind", "Unreadable"),
        ProblemKind.VANISHED: QCoreApplication.translate("ProblemKind", "Vanished"),
        ProblemKind.BINARY: QCoreApplication.translate("ProblemKind", "Not text"),
        ProblemKind.ENCODING: QCoreApplication.translate("ProblemKind", "Encoding"),
        ProblemKind.CORRUPT: QCoreApplication.translate("ProblemKind", "Damaged"),
        ProblemKind.ENCRYPTED: QCoreApplication.translate("ProblemKind", "Encrypted"),
        ProblemKind.UNSUPPORTED: QCoreApplication.translate("ProblemKind", "Unsupported"),
        ProblemKind.TOO_LARGE: QCoreApplication.translate("ProblemKind", "Too large"),
        ProblemKind.EMPTY: QCoreApplication.translate("ProblemKind", "No text"),
        ProblemKind.LOST: QCoreApplication.translate("ProblemKind", "Lost"),
    }
    try:
        return labels[ProblemKind(kind)]
    except ValueError:
        return str(kind)


class ProblemsModel(QAbstractTableModel):
    PATH, KIND, MESSAGE = range(3)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._problems: tuple[Problem, ...] = ()
        self._order: list[int] = []  # row -> problem, as sorted
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._headers = (self.tr("File"), self.tr("Problem"), self.tr("Details"))

    def set_problems(self, problems: tuple[Problem, ...]) -> None:
        """Show ``problems`` (nothing changes when they are the ones shown)."""
        problems = tuple(problems)
        if problems is self._problems or problems == self._problems:
            return
        self.beginResetModel()
        self._problems = problems
        self._order = self._sorted()
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Rows by ``column``'s text as shown (without case), ties in the scan's order; kept
        for later results. The selection follows its problems."""
        if not 0 <= column < 3:
            return
        self._sort = (column, order)
        self._order = list(reorder(self, self._order, self._sorted))

    def _sorted(self) -> list[int]:
        rows = list(range(len(self._problems)))
        if self._sort is None:
            return rows
        column, order = self._sort
        keys = [self._text(p, column).casefold() for p in self._problems]
        return sorted(rows, key=keys.__getitem__,
                      reverse=order == Qt.SortOrder.DescendingOrder)  # stable both ways

    def _text(self, p: Problem, column: int) -> str:
        if column == self.PATH:
            return visible(p.path)
        if column == self.KIND:
            return kind_label(p.kind)
        return visible(core_text(p.message))

    def problem(self, row: int) -> Problem:
        return self._problems[self._order[row]]

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._problems)

    def columnCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else 3

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if (role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal
                and 0 <= section < 3):
            return self._headers[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self._problems):
            return None
        p = self._problems[self._order[index.row()]]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole) \
                and 0 <= index.column() < 3:
            return self._text(p, index.column())
        if role == Qt.ItemDataRole.UserRole:
            return p.path
        return None
