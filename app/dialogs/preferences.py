"""Preferences: the interface language (applied on the next start) and where things are kept."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ..i18n import LANGUAGES
from ..settings import Settings


class PreferencesDialog(QDialog):
    def __init__(self, settings: Settings, log_path: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle(self.tr("Preferences"))
        self.language = QComboBox()
        for code, native in LANGUAGES:
            label = self.tr("Follow the system") if code == "" else native
            self.language.addItem(label, code)
        i = self.language.findData(settings.language)
        self.language.setCurrentIndex(max(0, i))
        restart = QLabel(self.tr("A new language takes effect when neardup is started again."))
        restart.setWordWrap(True)
        restart.setEnabled(False)

        where = QLabel(self.tr("Settings: {settings}\nAction log: {log}").format(
            settings=settings.store.fileName(), log=log_path))
        where.setWordWrap(True)
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        form.addRow(self.tr("Language:"), self.language)
        form.addRow("", restart)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addSpacing(8)
        lay.addWidget(where)
        lay.addWidget(buttons)
        self.resize(480, 200)

    def accept(self) -> None:
        self.settings.language = self.language.currentData()
        self.settings.sync()
        super().accept()
