"""Preferences: the interface language (applied on the next start), the encodings chosen for
particular files (undone here), and where things are kept."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from .. import settings as S
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

        # Files the user chose an encoding for: listed here so that a choice can be undone
        # without finding the file again.
        self.chosen = dict(settings.encodings)
        self.encodings = QListWidget()
        self.encodings.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        for path, codec in sorted(self.chosen.items()):
            item = QListWidgetItem(f"{codec} \u2014 {path}")
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            self.encodings.addItem(item)
        self.forget = QPushButton(self.tr("Detect again"))
        self.forget.setToolTip(self.tr("Read the selected files in the encoding detected"))
        self.forget.clicked.connect(self._forget_selected)
        self.forget.setEnabled(False)
        self.encodings.itemSelectionChanged.connect(
            lambda: self.forget.setEnabled(bool(self.encodings.selectedItems())))
        chosen_box = QWidget()
        box = QVBoxLayout(chosen_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.encodings)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.forget)
        box.addLayout(row)
        none = QLabel(self.tr("None: every text file is read in the encoding detected."))
        none.setEnabled(False)
        chosen_area = QWidget()   # owns both, shown or not: neither is left without a parent
        area = QVBoxLayout(chosen_area)
        area.setContentsMargins(0, 0, 0, 0)
        area.addWidget(none)
        area.addWidget(chosen_box)
        none.setVisible(not self.chosen)
        chosen_box.setVisible(bool(self.chosen))

        form = QFormLayout()
        form.addRow(self.tr("Language:"), self.language)
        form.addRow("", restart)
        form.addRow(self.tr("Encodings chosen:"), chosen_area)
        # the fingerprint cache's bounds, applied after each scan (0 = no bound)
        self.cache_limit = QSpinBox()
        self.cache_limit.setRange(0, 1 << 20)
        self.cache_limit.setSingleStep(256)
        self.cache_limit.setSuffix(" MiB")
        self.cache_limit.setSpecialValueText(self.tr("No limit"))
        self.cache_limit.setValue(settings.get(S.CACHE_LIMIT_MIB))
        self.cache_days = QSpinBox()
        self.cache_days.setRange(0, 100_000)
        self.cache_days.setSuffix(self.tr(" days"))
        self.cache_days.setSpecialValueText(self.tr("No limit"))
        self.cache_days.setValue(settings.get(S.CACHE_DAYS))
        form.addRow(self.tr("Cache size limit:"), self.cache_limit)
        form.addRow(self.tr("Keep cache entries for:"), self.cache_days)
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

    def _forget_selected(self) -> None:
        for item in self.encodings.selectedItems():
            self.chosen.pop(item.data(Qt.ItemDataRole.UserRole), None)
            self.encodings.takeItem(self.encodings.row(item))

    def accept(self) -> None:
        self.settings.language = self.language.currentData()
        self.settings.encodings = self.chosen
        self.settings.set(S.CACHE_LIMIT_MIB, self.cache_limit.value())
        self.settings.set(S.CACHE_DAYS, self.cache_days.value())
        self.settings.sync()
        super().accept()
