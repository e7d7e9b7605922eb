"""The confirmation shown before any file is trashed or moved: it names every file.

Fuzzy matches are not copies, so when any affected group is not exact the dialog says so in
plain words before the button (a complaint users of duplicate finders raise again and again).
Cancel is the default button and has the focus; Return and Enter cancel wherever the focus
is; confirming takes a click or the button's own key (Alt+T to trash, Alt+M to move).

The lists are views of models that put a row's texts together when it is shown: a dialog
naming 85,000 files as one widget item each, its first column sized to all of their names,
took 13 s to open.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from neardup_core.actions import ActionPlan, root_of
from neardup_core.result import ScanResult
from neardup_core.visible import visible

from ..i18n import core_text
from ..widgets.icons import icon


def folder_from_root(path: str, roots: tuple[str, ...]) -> str:
    """``path``'s folder as seen from its scanned folder: ``reports/备份`` for
    ``/home/me/reports/备份/a.txt`` scanned from ``/home/me/reports``; the full folder when the
    path is in no scanned folder."""
    root = root_of(path, roots)
    folder = os.path.dirname(path)
    if root is None:
        return folder
    rel = os.path.relpath(folder, root)
    name = os.path.basename(root) or root
    return name if rel == os.curdir else os.path.join(name, rel)


@dataclass(frozen=True, slots=True)
class Confirmation:
    allow_changed: bool  # the user also confirmed the files that changed since the scan


def similar_not_identical(plan: ActionPlan, result: ScanResult) -> bool:
    """Whether any file in the plan belongs to a group whose members differ in text."""
    docs = np.fromiter((it.doc for it in plan.items), dtype=np.int64)
    table = result.group_table  # flat arrays: no object per member, however large the result
    hit = np.isin(table.members, docs)
    return bool((hit & ~table.exact[table.group_of]).any())


Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
#: (texts, tooltips, whether the last column is a warning) of one row
Row = tuple[tuple[str, ...], tuple[str, ...], bool]
#: Rows whose texts the lists keep once made (those scrolled past are made again)
KEPT_ROWS = 4096
#: Rows whose first cell sizes the first column
SIZED_FROM = 200
#: Notes on the groups shown as lines of text up to this many, as a list beyond
WARNINGS_IN_LABEL = 8


class RowsModel(QAbstractTableModel):
    """``count`` rows under ``headers``, each made by ``row(i)`` when it is first shown."""

    def __init__(self, headers: list[str], count: int, row: Callable[[int], Row]) -> None:
        super().__init__()
        self._headers = headers
        self._count = count
        self._row = row
        self._made: dict[int, Row] = {}

    def made(self, i: int) -> Row:
        got = self._made.get(i)
        if got is None:
            if len(self._made) >= KEPT_ROWS:
                self._made.clear()
            got = self._made[i] = self._row(i)
        return got

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._headers)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if (role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal
                and 0 <= section < len(self._headers)):
            return self._headers[section]
        return None

    def data(self, index: Index,
             role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < self._count:
            return None
        texts, tips, warn = self.made(index.row())
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return texts[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            return tips[col] if col < len(tips) else None
        if role == Qt.ItemDataRole.ForegroundRole and warn and col == len(texts) - 1:
            return Qt.GlobalColor.darkRed
        return None


def _list_view(model: RowsModel) -> QTableView:
    """A flat list of ``model``'s rows, its first column as wide as the first rows' texts
    (sizing it to every row measured them all). A table, not a tree view: a tree lays out
    an item per row when shown (85,000 rows: 9 s)."""
    view = QTableView()
    view.setModel(model)
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    metrics = view.fontMetrics()
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(metrics.height() + 6)
    view.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft
                                                | Qt.AlignmentFlag.AlignVCenter)
    first = max((metrics.horizontalAdvance(model.made(i)[0][0])
                 for i in range(min(model.rowCount(), SIZED_FROM))), default=0)
    view.setColumnWidth(0, min(max(first + 24, 120), 420))
    view.horizontalHeader().setStretchLastSection(True)
    return view


class ConfirmActionDialog(QDialog):
    def __init__(self, plan: ActionPlan, result: ScanResult, log_path: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan = plan
        trash = plan.action == "trash"
        self.setWindowTitle(self.tr("Move to trash") if trash else self.tr("Move to folder"))
        self.resize(760, 460)

        n = len(plan.items)
        heading = QLabel(
            self.tr("Send these %Ln files to the trash?", "", n) if trash else
            self.tr("Move these %Ln files to {folder}?", "", n).format(
                folder=visible(str(plan.destination))))
        f = heading.font()
        f.setPointSizeF(f.pointSizeF() * 1.15)
        f.setBold(True)
        heading.setFont(f)
        heading.setWordWrap(True)

        lay = QVBoxLayout(self)
        lay.addWidget(heading)

        self.fuzzy_warning: QLabel | None = None
        if trash and similar_not_identical(plan, result):
            box = QHBoxLayout()
            sign = QLabel()
            sign.setPixmap(icon("warning", "#b45f06").pixmap(28, 28))
            self.fuzzy_warning = QLabel(self.tr(
                "<b>These files are similar, not identical.</b> What goes to the trash differs "
                "from the copy that stays. Compare them before you continue."))
            self.fuzzy_warning.setWordWrap(True)
            self.fuzzy_warning.setStyleSheet("color: #8a4500;")
            box.addWidget(sign, 0, Qt.AlignmentFlag.AlignTop)
            box.addWidget(self.fuzzy_warning, 1)
            lay.addLayout(box)

        items = plan.items

        def file_row(i: int) -> Row:
            it = items[i]
            note = core_text(it.reason or "")
            if not trash and it.target and plan.destination:
                note = self.tr("to {path}").format(
                    path=visible(os.path.relpath(it.target, plan.destination)))
            # shown as they are spelled: a name with a direction override or a line break must
            # not pass for another file's in the list of files about to be changed; the folder
            # from the scanned folder, so an original and its 备份/ copy are told apart
            return ((visible(os.path.basename(it.path)),
                     visible(folder_from_root(it.path, plan.roots)), visible(note)),
                    (visible(it.path), visible(os.path.dirname(it.path))), bool(it.changed))

        self.files = _list_view(RowsModel([self.tr("File"), self.tr("Folder"), self.tr("Note")],
                                          len(items), file_row))
        lay.addWidget(self.files, 3)

        if plan.refused:
            lay.addWidget(QLabel(self.tr("These stay where they are:")))
            refused = plan.refused

            def refused_row(i: int) -> Row:
                r = refused[i]
                return ((visible(os.path.basename(r.path)), visible(core_text(r.reason))),
                        (visible(r.path),), False)

            self.refused = _list_view(RowsModel([self.tr("File"), self.tr("Why")],
                                                len(refused), refused_row))
            lay.addWidget(self.refused, 1)

        warnings = plan.warnings
        if 0 < len(warnings) <= WARNINGS_IN_LABEL:
            notes = QLabel("\n".join(f"• {core_text(w)}" for w in warnings))
            notes.setWordWrap(True)
            notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            lay.addWidget(notes)
        elif warnings:  # one per group of many (36,711 lines in a label: 9 s to lay out)
            lay.addWidget(QLabel(self.tr("Notes on %Ln groups:", "", len(warnings))))

            def note_row(i: int) -> Row:
                text = core_text(warnings[i])
                return (text,), (text,), False

            self.notes = _list_view(RowsModel([self.tr("Note")], len(warnings), note_row))
            self.notes.horizontalHeader().hide()
            lay.addWidget(self.notes, 1)

        self.include_changed = QCheckBox(self.tr(
            "Also act on the %Ln files that changed since the scan", "", len(plan.changed)))
        self.include_changed.setVisible(bool(plan.changed))
        lay.addWidget(self.include_changed)

        log_label = QLabel(self.tr("Every file acted on is recorded in {log}").format(
            log=log_path))
        log_label.setWordWrap(True)
        log_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        log_label.setEnabled(False)
        lay.addWidget(log_label)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = buttons.addButton(
            self.tr("Move to trash") if trash else self.tr("Move"),
            QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok_button.setIcon(icon("trash" if trash else "move"))
        self.ok_button.setEnabled(bool(plan.items))
        # Confirming takes a click or its own key (Alt+T, Alt+M), never Return: a push button
        # in a dialog is "auto-default" and becomes the default while it has the focus, which
        # made Return (pressed out of habit after Ctrl+M) send the files to the trash.
        self.ok_button.setAutoDefault(False)
        self.ok_button.setDefault(False)
        self.ok_button.setShortcut(QKeySequence("Alt+T" if trash else "Alt+M"))
        self.ok_button.setToolTip(self.tr("Alt+T") if trash else self.tr("Alt+M"))
        self.cancel_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button.setAutoDefault(True)
        self.cancel_button.setDefault(True)
        self.cancel_button.setFocus()
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def showEvent(self, event: QShowEvent) -> None:
        """Cancel has the focus when the dialog appears (focus given before the show can be
        moved by Qt to the first button in the tab order, the confirming one)."""
        super().showEvent(event)
        self.cancel_button.setDefault(True)
        self.cancel_button.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Return and Enter cancel, wherever the focus is: they never confirm."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()
            self.reject()
            return
        super().keyPressEvent(event)

    def confirmation(self) -> Confirmation:
        return Confirmation(allow_changed=self.include_changed.isChecked())


def confirm_plan(parent: QWidget | None, plan: ActionPlan, result: ScanResult,
                 log_path: str) -> Confirmation | None:
    """Ask the user; None means "do nothing"."""
    dialog = ConfirmActionDialog(plan, result, log_path, parent)
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    conf = dialog.confirmation() if accepted else None
    dialog.deleteLater()
    return conf
