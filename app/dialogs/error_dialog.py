"""Shown instead of a crash: what happened, that no file was touched, and where the log is."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class ErrorDialog(QDialog):
    def __init__(self, summary: str, details: str, log_path: str | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Unexpected error"))
        text = self.tr("neardup ran into an unexpected problem and stopped what it was doing. "
                       "No file was changed by this error.")
        head = QLabel(f"<b>{self.tr('Something went wrong')}</b><br>{text}")
        head.setWordWrap(True)
        msg = QLabel(summary)
        msg.setWordWrap(True)
        msg.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details = QPlainTextEdit(details)
        self.details.setReadOnly(True)
        self.details.setVisible(False)
        self.details.setMinimumHeight(180)
        toggle = QPushButton(self.tr("Show details"))
        toggle.setCheckable(True)
        toggle.toggled.connect(self.details.setVisible)
        lay = QVBoxLayout(self)
        lay.addWidget(head)
        lay.addWidget(msg)
        if log_path:
            where = QLabel(self.tr("The details were written to {log}").format(log=log_path))
            where.setWordWrap(True)
            where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            lay.addWidget(where)
        lay.addWidget(self.details)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton(self.tr("Copy details"), QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(details))
        buttons.addButton(toggle, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        lay.addWidget(buttons)
        self.resize(560, 220)
