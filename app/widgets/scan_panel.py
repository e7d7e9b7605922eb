"""Where a scan is set up: folders, reference folders, file types, exclusions and method.

The panel only collects choices; :meth:`ScanPanel.build_options` turns them into ScanOptions,
whose own validation (in the core) decides what is acceptable, so the rules live in one place.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from neardup_core.models import DEFAULT_FLOOR, DEFAULT_SUFFIXES, ScanOptions

from .. import settings as S
from ..settings import Settings
from .icons import icon

#: The file types offered as checkboxes: each box reads the suffixes of its row (the first
#: names it). Word 97-2003 .doc (and .wps in that format) go with Word; files under those
#: names that cannot be read are listed as problems that say to save them as .docx.
FILE_TYPES: tuple[tuple[str, ...], ...] = (
    (".txt",), (".docx", ".doc", ".wps"), (".pdf",), (".odt",), (".rtf",), (".html", ".htm"),
    (".md",))


def split_patterns(text: str) -> tuple[str, ...]:
    """``*.bak; ~$*`` -> ("*.bak", "~$*"): semicolons, commas or new lines separate patterns."""
    return tuple(p.strip() for p in re.split(r"[;,\n]", text) if p.strip())


class FolderList(QWidget):
    """A list of folders with Add / Remove buttons; accepts folders dropped on it."""

    changed = Signal()

    def __init__(self, add_title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._add_title = add_title
        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.list.setAcceptDrops(True)
        self.list.setMinimumHeight(64)
        self.add_button = QPushButton(icon("folder-add"), self.tr("Add…"))
        self.remove_button = QPushButton(icon("remove"), self.tr("Remove"))
        self.remove_button.setEnabled(False)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        lay.addWidget(self.list)
        lay.addLayout(buttons)
        self.add_button.clicked.connect(self._ask_folder)
        self.remove_button.clicked.connect(self.remove_selected)
        self.list.itemSelectionChanged.connect(
            lambda: self.remove_button.setEnabled(bool(self.list.selectedItems())))
        self.start_dir = ""

    def folders(self) -> list[str]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def set_folders(self, folders: Iterable[str]) -> None:
        self.list.clear()
        self.add_folders(folders)

    def add_folders(self, folders: Iterable[str]) -> int:
        """Add folders not listed yet; returns how many were added."""
        have = {os.path.normcase(f) for f in self.folders()}
        added = 0
        for f in folders:
            path = os.path.abspath(os.path.expanduser(f))
            if os.path.normcase(path) in have:
                continue
            have.add(os.path.normcase(path))
            item = QListWidgetItem(icon("folder"), path)
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            if not os.path.isdir(path):
                item.setForeground(Qt.GlobalColor.red)
                item.setToolTip(self.tr("{path}\nThis folder does not exist").format(path=path))
            self.list.addItem(item)
            added += 1
        if added:
            self.changed.emit()
        return added

    def remove_selected(self) -> None:
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))
        self.changed.emit()

    def _ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self._add_title, self.start_dir)
        if folder:
            self.start_dir = folder
            self.add_folders([folder])


class ScanPanel(QWidget):
    """The scan set-up form. ``startRequested`` fires when the user asks for a scan."""

    startRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folders = FolderList(self.tr("Add a folder to scan"))
        self.folders.list.setToolTip(self.tr("Folders to scan. You can also drop folders on "
                                             "the window."))
        self.references = FolderList(self.tr("Add a reference folder"))
        self.references.list.setToolTip(self.tr("Files in these folders are always kept: they "
                                                "become their group's reference"))
        self.references.list.setMinimumHeight(44)

        self.type_boxes: dict[str, QCheckBox] = {}
        types = QGridLayout()
        types.setContentsMargins(0, 0, 0, 0)
        labels = {".txt": self.tr("Text (.txt)"), ".docx": self.tr("Word (.docx, .doc)"),
                  ".pdf": self.tr("PDF (.pdf)"), ".odt": self.tr("OpenDocument (.odt)"),
                  ".rtf": self.tr("Rich text (.rtf)"), ".html": self.tr("Web pages (.html)"),
                  ".md": self.tr("Markdown (.md)")}
        tips = {".docx": self.tr("Also Word 97-2003 files (.doc), and WPS files saved in that "
                                 "format; the others are listed as problems that say to save "
                                 "them as .docx"),
                ".pdf": self.tr("The text of PDF files; scanned pages without text are "
                                "listed as problems"),
                ".html": self.tr("The visible text of web pages (.html, .htm)")}
        self._type_suffixes: dict[str, tuple[str, ...]] = {}
        for k, group in enumerate(FILE_TYPES):
            box = QCheckBox(labels[group[0]])
            if group[0] in tips:
                box.setToolTip(tips[group[0]])
            self.type_boxes[group[0]] = box
            self._type_suffixes[group[0]] = group
            types.addWidget(box, k // 2, k % 2)
        types_widget = QWidget()
        types_widget.setLayout(types)

        self.recursive = QCheckBox(self.tr("Include subfolders"))
        self.follow_links = QCheckBox(self.tr("Follow symbolic links"))
        self.follow_links.setToolTip(self.tr(
            "Also scan the files and folders that symbolic links point to (off: links are "
            "skipped and counted in a note)"))
        self.exclude = QLineEdit()
        self.exclude.setPlaceholderText(self.tr("e.g. *.bak; ~$*; */node_modules/*"))
        self.exclude.setToolTip(self.tr("Glob patterns matched against the file name or path, "
                                        "separated by semicolons"))
        self.method = QComboBox()
        self.method.addItem(self.tr("Both (recommended)"), "both")
        self.method.addItem(self.tr("MinHash"), "minhash")
        self.method.addItem(self.tr("SimHash"), "simhash")
        self.method.setToolTip(self.tr(
            "MinHash estimates shared text precisely; SimHash is faster on very large "
            "collections; Both finds candidates with each and scores with MinHash"))
        self.group_mode = QComboBox()
        self.group_mode.addItem(self.tr("Connected"), "connected")
        self.group_mode.addItem(self.tr("Strict"), "strict")
        self.group_mode.addItem(self.tr("Cohesive"), "cohesive")
        self.group_mode.setToolTip(self.tr(
            "Connected: chains of similar files form one group. Strict: every member is "
            "similar to the group's reference. Cohesive: like Connected, but no two files in "
            "a group are far less similar than the threshold"))

        self.start_button = QPushButton(icon("scan", "#ffffff"), self.tr("Start scan"))
        self.start_button.setObjectName("primaryButton")
        self.start_button.setMinimumHeight(34)
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.startRequested)

        where = QGroupBox(self.tr("Folders to scan"))
        wl = QVBoxLayout(where)
        wl.addWidget(self.folders)
        refs = QGroupBox(self.tr("Reference folders (files there are kept)"))
        rl = QVBoxLayout(refs)
        rl.addWidget(self.references)

        what = QGroupBox(self.tr("What to compare"))
        form = QFormLayout(what)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        form.addRow(self.tr("File types:"), types_widget)
        form.addRow("", self.recursive)
        form.addRow("", self.follow_links)
        form.addRow(self.tr("Exclude:"), self.exclude)
        form.addRow(self.tr("Method:"), self.method)
        # one Grouping control in the window: the threshold panel's (issue 21, item 9); this
        # combo box only carries its value into the scan's options and the settings
        self.group_mode.hide()

        hint = QLabel(self.tr("Tip: drop folders anywhere on the window to add them."))
        hint.setWordWrap(True)
        hint.setEnabled(False)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 8)
        lay.setSpacing(8)
        lay.addWidget(where, 3)
        lay.addWidget(refs, 1)
        lay.addWidget(what, 0)
        lay.addWidget(hint)
        lay.addWidget(self.start_button)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.set_suffixes(DEFAULT_SUFFIXES)
        self.recursive.setChecked(True)

    # -- values ---------------------------------------------------------------------------
    def suffixes(self) -> list[str]:
        """The suffixes of the checked boxes (a box may stand for several: .html and .htm)."""
        return [x for s, box in self.type_boxes.items() if box.isChecked()
                for x in self._type_suffixes[s]]

    def set_suffixes(self, suffixes: Iterable[str]) -> None:
        """Check the boxes whose first suffix is among ``suffixes``."""
        wanted = {s.lower() for s in suffixes}
        for s, box in self.type_boxes.items():
            box.setChecked(s in wanted)

    def build_options(self, threshold: float) -> ScanOptions:
        """ScanOptions for the current choices, validated by the core (raises OptionsError)."""
        floor = min(threshold, DEFAULT_FLOOR)  # pairs are kept down to here for the slider
        return ScanOptions(
            include=tuple(self.suffixes()),
            exclude=split_patterns(self.exclude.text()),
            recursive=self.recursive.isChecked(),
            follow_symlinks=self.follow_links.isChecked(),
            method=self.method.currentData(),
            group_mode=self.group_mode.currentData(),
            threshold=threshold,
            floor=floor,
            reference_folders=tuple(self.references.folders()),
        ).validate()

    # -- persistence ----------------------------------------------------------------------
    def load(self, settings: Settings) -> None:
        self.folders.set_folders(settings.get(S.FOLDERS))
        self.references.set_folders(settings.get(S.REFERENCE_FOLDERS))
        self.set_suffixes(settings.get(S.SUFFIXES))
        self.recursive.setChecked(settings.get(S.RECURSIVE))
        self.follow_links.setChecked(settings.get(S.FOLLOW_SYMLINKS))
        self.exclude.setText("; ".join(settings.get(S.EXCLUDE)))
        for combo, opt in ((self.method, S.METHOD), (self.group_mode, S.GROUP_MODE)):
            i = combo.findData(settings.get(opt))
            combo.setCurrentIndex(max(0, i))
        last = settings.get(S.LAST_DIR)
        self.folders.start_dir = self.references.start_dir = last

    def save(self, settings: Settings) -> None:
        settings.set(S.FOLDERS, self.folders.folders())
        settings.set(S.REFERENCE_FOLDERS, self.references.folders())
        settings.set(S.SUFFIXES, self.suffixes())
        settings.set(S.RECURSIVE, self.recursive.isChecked())
        settings.set(S.EXCLUDE, list(split_patterns(self.exclude.text())))
        settings.set(S.METHOD, self.method.currentData())
        settings.set(S.GROUP_MODE, self.group_mode.currentData())
        settings.set(S.FOLLOW_SYMLINKS, self.follow_links.isChecked())
        settings.set(S.LAST_DIR, self.folders.start_dir or self.references.start_dir)

    def set_running(self, running: bool) -> None:
        for w in (self.folders, self.references, self.start_button, self.method,
                  self.group_mode, self.exclude, self.recursive, self.follow_links,
                  *self.type_boxes.values()):
            w.setEnabled(not running)
