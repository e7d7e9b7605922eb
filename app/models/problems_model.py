"""The files a scan could not use, as a plain table (path, kind, message)."""

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
        self._headers = (self.tr("File"), self.tr("Problem"), self.tr("Details"))

    def set_problems(self, problems: tuple[Problem, ...]) -> None:
        self.beginResetModel()
        self._problems = tuple(problems)
        self.endResetModel()

    def problem(self, row: int) -> Problem:
        return self._problems[row]

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
        p = self._problems[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if index.column() == self.PATH:
                return visible(p.path)
            if index.column() == self.KIND:
                return kind_label(p.kind)
            if index.column() == self.MESSAGE:
                return visible(core_text(p.message))
        if role == Qt.ItemDataRole.UserRole:
            return p.path
        return None
