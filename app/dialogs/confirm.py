"""The confirmation shown before any file is trashed or moved: it names every file.

Fuzzy matches are not copies, so when any affected group is not exact the dialog says so in
plain words before the button (a complaint users of duplicate finders raise again and again).
Cancel is the default button and has the focus; Return and Enter cancel wherever the focus
is; confirming takes a click or the button's own key (Alt+T to trash, Alt+M to move).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
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

        self.files = QTreeWidget()
        self.files.setRootIsDecorated(False)
        self.files.setUniformRowHeights(True)
        self.files.setHeaderLabels([self.tr("File"), self.tr("Folder"), self.tr("Note")])
        for it in plan.items:
            note = core_text(it.reason or "")
            if not trash and it.target and plan.destination:
                note = self.tr("to {path}").format(
                    path=visible(os.path.relpath(it.target, plan.destination)))
            # shown as they are spelled: a name with a direction override or a line break must
            # not pass for another file's in the list of files about to be changed; the folder
            # from the scanned folder, so an original and its 备份/ copy are told apart
            row = QTreeWidgetItem([visible(os.path.basename(it.path)),
                                   visible(folder_from_root(it.path, plan.roots)),
                                   visible(note)])
            row.setToolTip(0, visible(it.path))
            row.setToolTip(1, visible(os.path.dirname(it.path)))
            if it.changed:
                row.setForeground(2, Qt.GlobalColor.darkRed)
            self.files.addTopLevelItem(row)
        header = self.files.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        lay.addWidget(self.files, 3)

        if plan.refused:
            lay.addWidget(QLabel(self.tr("These stay where they are:")))
            self.refused = QTreeWidget()
            self.refused.setRootIsDecorated(False)
            self.refused.setHeaderLabels([self.tr("File"), self.tr("Why")])
            for r in plan.refused:
                row = QTreeWidgetItem([visible(os.path.basename(r.path)),
                                       visible(core_text(r.reason))])
                row.setToolTip(0, visible(r.path))
                self.refused.addTopLevelItem(row)
            self.refused.header().setSectionResizeMode(
                0, QHeaderView.ResizeMode.ResizeToContents)
            lay.addWidget(self.refused, 1)

        if plan.warnings:
            notes = QLabel("\n".join(f"• {core_text(w)}" for w in plan.warnings))
            notes.setWordWrap(True)
            notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            lay.addWidget(notes)

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
