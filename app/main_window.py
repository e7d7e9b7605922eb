"""The main window: set up a scan, watch it run, then review, compare, mark, act and export.

The window holds one immutable ScanResult at a time. Every change the user makes to the
grouping (threshold, mode, references, ignored pairs, files that left) produces a new result
through the core's API and is shown with one model reset. Slow work (the scan, reading texts
for the diff, file actions, exports) runs in workers; their signals arrive on the main thread.

The window lays out the widgets and wires them; what an action does lives in its collaborators
(``app.controllers``: scans, file actions, results I/O, regrouping), and its actions and menus
are built by ``app.window_actions``. The public methods here are the actions' entry points and
the seams the controllers and the tests use.

It stays one module, some 700 lines: most of it is the layout of the window's widgets
and the signal wiring between them, which reads best in one place; what remains besides is one-
line hand-offs to the controllers and the settings the window saves and restores.
"""

from __future__ import annotations

import logging
import os
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import send2trash
from PySide6.QtCore import (
    QByteArray,
    QItemSelectionModel,
    QLocale,
    QModelIndex,
    Qt,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from neardup_core import actions
from neardup_core.models import (
    DEFAULT_FLOOR,
    DEFAULT_THRESHOLD,
    ENCODED_SUFFIXES,
    Member,
    ScanOptions,
)
from neardup_core.result import ScanResult
from neardup_core.scan.isolated import stop_readers

from . import settings as S
from .choices import Choices
from .controllers.file_actions import FileActionsController
from .controllers.grouping import GroupingController
from .controllers.results_io import ResultsIOController
from .controllers.scan import ScanController
from .diagnostics import log_file
from .dialogs.confirm import Confirmation, confirm_plan
from .dialogs.encoding_dialog import EncodingDialog
from .dialogs.error_dialog import ErrorDialog
from .dialogs.ignored_dialog import IgnoredPairsDialog
from .dialogs.preferences import PreferencesDialog
from .models import ProblemsModel, ResultsModel
from .settings import Settings
from .widgets.excerpt_view import ExcerptView
from .widgets.icons import app_icon, icon
from .widgets.preview import PreviewPane
from .widgets.progress_panel import ProgressPanel
from .widgets.results_view import ResultsTree
from .widgets.scan_panel import ScanPanel
from .widgets.threshold_panel import ThresholdPanel
from .window_actions import WindowActions
from .workers import ScanWorker, Source, Worker, WorkerHost

log = logging.getLogger(__name__)

HISTOGRAM_BINS = 60

ConfirmFn = Callable[[QWidget | None, actions.ActionPlan, ScanResult, str], Confirmation | None]

STYLE = """
QPushButton#primaryButton { background: #2d6ec8; color: white; border: 1px solid #245cab;
    border-radius: 4px; padding: 6px 16px; font-weight: bold; }
QPushButton#primaryButton:hover { background: #3a7bd5; }
QPushButton#primaryButton:disabled { background: #a9bedf; border-color: #a9bedf; }
QFrame#thresholdFrame { border: 1px solid palette(mid); border-radius: 6px;
    background: palette(base); }
QLabel#banner { background: #fff4d6; color: #5c4300; border: 1px solid #f0d58a;
    border-radius: 4px; padding: 6px 10px; }
QLabel#counts { padding: 0 6px; }
QTreeView#results::item { padding: 2px 0; }
"""


class MainWindow(QMainWindow):
    """neardup's window. Seams for tests: the scan session factory, the trash function, the
    action log path and the confirmation and folder prompts."""

    resultChanged = Signal()
    scanFinished = Signal()
    actionFinished = Signal(object)  # ActionReport
    busyChanged = Signal(bool)

    def __init__(self, settings: Settings, *, folders: Sequence[str] = (),
                 session_factory: Callable[[ScanOptions], Any] | None = None,
                 trash: Callable[[str], None] = send2trash.send2trash,
                 action_log: str | None = None,
                 confirm: ConfirmFn = confirm_plan) -> None:
        super().__init__()
        self.settings = settings
        self.trash_function = trash
        self.action_log_path = action_log or actions.default_log_path()
        self.confirm = confirm
        self.ask_folder: Callable[[str], str] = self._ask_folder
        self.ask_save_path: Callable[[str, str, str], str] = self._ask_save_path
        self.ask_open_path: Callable[[str, str], str] = self._ask_open_path
        self.ask_text_file: Callable[[str], str] = self._ask_text_file
        self.make_ignored_dialog: Callable[[Choices, QWidget], Any] = IgnoredPairsDialog
        self.make_encoding_dialog: Callable[[str, str | None], Any] = \
            self._make_encoding_dialog
        self.result: ScanResult | None = None
        # ignored pairs and chosen references, kept across scans beside the action log
        self.choices = Choices.load(os.path.join(os.path.dirname(self.action_log_path),
                                                 "choices.json"))
        self.busy_worker: Worker | None = None
        self.host = WorkerHost(self)
        self.scans = ScanController(self, session_factory)
        self.file_actions = FileActionsController(self)
        self.results_io = ResultsIOController(self)
        self.grouping = GroupingController(self)
        self.window_actions = WindowActions(self)

        self.setWindowTitle("neardup")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.setStyleSheet(STYLE)

        self._build_widgets()
        self.window_actions.build_actions()
        self.window_actions.build_menus()
        self._restore()
        if folders:
            self.scan_panel.folders.set_folders(folders)
        self.update_actions()
        self._update_counts()

    @property
    def scan_worker(self) -> ScanWorker | None:
        """The running scan's worker, None when no scan runs."""
        return self.scans.worker

    # ================================================================= construction
    def _build_widgets(self) -> None:
        self.scan_panel = ScanPanel()
        self.scan_panel.startRequested.connect(self.start_scan)
        self.scan_panel.setMinimumWidth(self.scan_panel.minimumSizeHint().width())
        self.setup_area = self.scan_panel

        self.progress = ProgressPanel()
        self.progress.hide()
        self.progress.cancelRequested.connect(self.cancel_scan)

        self.threshold = ThresholdPanel()
        self.threshold.thresholdChanged.connect(self.grouping.on_threshold)
        self.threshold.modeChanged.connect(self.grouping.on_mode)
        self.threshold.logScaleChanged.connect(
            lambda on: self.settings.set(S.HISTOGRAM_LOG, on))
        self.scan_panel.group_mode.currentIndexChanged.connect(
            lambda _i: self.grouping.on_mode(self.scan_panel.group_mode.currentData()))
        frame = QFrame()
        frame.setObjectName("thresholdFrame")
        fl = QVBoxLayout(frame)
        fl.setContentsMargins(4, 4, 4, 4)
        fl.addWidget(self.threshold)
        frame.setMaximumHeight(190)

        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.hide()

        self.model = ResultsModel(self)
        self.model.marksChanged.connect(self._update_counts)
        self.model.marksChanged.connect(self.update_actions)
        self.tree = ResultsTree()
        self.tree.setObjectName("results")
        self.tree.setModel(self.model)
        self.tree.apply_default_widths()
        self.tree.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.tree.selectionModel().selectionChanged.connect(self._on_selection)
        self.tree.toggleMarkRequested.connect(self.toggle_marks)
        self.tree.openRequested.connect(self.open_selected)
        self.tree.customContextMenuRequested.connect(self.window_actions.context_menu)

        self.filter = QLineEdit()
        self.filter.setPlaceholderText(self.tr("Filter by name or folder…"))
        self.filter.setClearButtonEnabled(True)
        self.filter.addAction(icon("filter"), QLineEdit.ActionPosition.LeadingPosition)
        self.filter.textChanged.connect(self._on_filter)

        groups_page = QWidget()
        gl = QVBoxLayout(groups_page)
        gl.setContentsMargins(0, 4, 0, 0)
        gl.setSpacing(4)
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        gl.addLayout(top)
        gl.addWidget(self.tree, 1)

        self.problems_model = ProblemsModel(self)
        self.problems_view = QTableView()
        self.problems_view.setModel(self.problems_model)  # it sorts itself (see the model)
        self.problems_view.setSortingEnabled(True)
        self.problems_view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.problems_view.verticalHeader().hide()
        self.problems_view.horizontalHeader().setStretchLastSection(True)
        self.problems_view.setColumnWidth(0, 420)
        self.problems_view.setColumnWidth(1, 120)
        self.problems_view.doubleClicked.connect(self.file_actions.reveal_problem)
        self.problems_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.problems_view.customContextMenuRequested.connect(self.window_actions.problem_menu)

        self.tabs = QTabWidget()
        self.tabs.addTab(groups_page, icon("compare"), self.tr("Groups"))
        self.tabs.addTab(self.problems_view, icon("warning"), self.tr("Problems"))
        self.excerpts_view = ExcerptView(start=self.host.start)
        self.tabs.addTab(self.excerpts_view, icon("compare"), self.tr("Excerpts"))
        # the Excerpts tab shows its own pair; the group preview below would only crowd it
        self.tabs.currentChanged.connect(
            lambda i: self.preview.setVisible(self.tabs.widget(i) is not self.excerpts_view))

        self.preview = PreviewPane(self.host)
        # the threshold and the lists in one column, the diff beside them taking the whole
        # height (issue 21, item 9: 20 rows of diff at 1280x720); View ▸ Diff below the
        # results stacks them instead
        lists = QWidget()
        ll = QVBoxLayout(lists)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.setSpacing(6)
        ll.addWidget(frame)
        ll.addWidget(self.tabs, 1)
        self.results_split = QSplitter(Qt.Orientation.Horizontal)
        self.results_split.addWidget(lists)
        self.results_split.addWidget(self.preview)
        self.results_split.setStretchFactor(0, 1)
        self.results_split.setStretchFactor(1, 1)
        self.results_split.setChildrenCollapsible(False)
        self.results_split.setSizes([690, 690])

        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(4, 6, 6, 0)
        rl.setSpacing(6)
        rl.addWidget(self.progress)
        rl.addWidget(self.banner)
        rl.addWidget(self.results_split, 1)

        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.addWidget(self.scan_panel)
        self.main_split.addWidget(right)
        self.main_split.setStretchFactor(0, 0)
        self.main_split.setStretchFactor(1, 1)
        self.main_split.setSizes([360, 1040])
        self.main_split.setChildrenCollapsible(False)
        self.setCentralWidget(self.main_split)

        self.counts = QLabel()
        self.counts.setObjectName("counts")
        self.statusBar().addPermanentWidget(self.counts)

    # ================================================================= settings
    def _restore(self) -> None:
        s = self.settings
        self.scan_panel.load(s)
        self.threshold.set_mode(s.get(S.GROUP_MODE))
        self.threshold.set_log_scale(s.get(S.HISTOGRAM_LOG))
        self.preview.diff.set_word_wrap(s.get(S.DIFF_WRAP))
        self.preview.diff.wrap_action.toggled.connect(lambda on: s.set(S.DIFF_WRAP, on))
        self.tree.set_duplicates_only(s.get(S.DUPLICATES_ONLY))
        self.set_diff_below(s.get(S.DIFF_BELOW))
        self.act_dupes_only.setChecked(s.get(S.DUPLICATES_ONLY))
        t = s.threshold
        self.threshold.set_range(min(DEFAULT_FLOOR, t) if 0 < t <= 1 else DEFAULT_FLOOR)
        self.threshold.set_threshold(t if 0 < t <= 1 else DEFAULT_THRESHOLD)
        geometry = s.get(S.WINDOW_GEOMETRY)
        if geometry:
            self.restoreGeometry(QByteArray(geometry))
        else:
            self.resize(1400, 900)
        state = s.get(S.WINDOW_STATE)
        if state:
            self.restoreState(QByteArray(state))
        for opt, split in ((S.MAIN_SPLITTER, self.main_split),
                           (S.RESULTS_SPLITTER, self.results_split)):
            raw = s.get(opt)
            if raw:
                split.restoreState(QByteArray(raw))
        header = s.get(S.TREE_HEADER)
        if header:
            self.tree.header().restoreState(QByteArray(header))

    def save_settings(self) -> None:
        s = self.settings
        self.scan_panel.save(s)
        s.set(S.GROUP_MODE, self.threshold.current_mode())
        s.threshold = self.threshold.threshold()
        s.set(S.HISTOGRAM_LOG, self.threshold.log_box.isChecked())
        s.set(S.WINDOW_GEOMETRY, bytes(self.saveGeometry().data()))
        s.set(S.WINDOW_STATE, bytes(self.saveState().data()))
        s.set(S.MAIN_SPLITTER, bytes(self.main_split.saveState().data()))
        s.set(S.RESULTS_SPLITTER, bytes(self.results_split.saveState().data()))
        s.set(S.TREE_HEADER, bytes(self.tree.header().saveState().data()))
        s.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.scan_worker is not None:
            self.scan_worker.cancel()
        self.grouping.stop_warming()
        self.file_actions.cancel()  # a trash or move stops before its next file (all logged)
        stop_readers()  # a PDF read again for a view ends now, not within its time limit
        self.save_settings()
        self.host.wait(15_000)
        super().closeEvent(event)

    # ================================================================= drag and drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_folders(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        folders = self._dropped_folders(event)
        if folders and self.scan_worker is None:
            n = self.scan_panel.folders.add_folders(folders)
            self.statusBar().showMessage(self.tr("Added %Ln folders", "", n), 4000)
            event.acceptProposedAction()

    @staticmethod
    def _dropped_folders(event: QDragEnterEvent | QDropEvent) -> list[str]:
        md = event.mimeData()
        if not md.hasUrls():
            return []
        return [u.toLocalFile() for u in md.urls()
                if u.isLocalFile() and os.path.isdir(u.toLocalFile())]

    # ================================================================= scanning
    def start_scan(self) -> None:
        self.scans.start()

    def cancel_scan(self) -> None:
        """The Cancel action: the scan, or the trash or move running."""
        if self.scan_worker is None and self.file_actions.running():
            self.file_actions.cancel()
            return
        self.scans.cancel()

    def show_banner(self, lines: list[str]) -> None:
        self.banner.setText("\n".join(lines))
        self.banner.setVisible(bool(lines))

    # ================================================================= the result
    def set_result(self, result: ScanResult | None, *, new_scan: bool = False,
                   chosen: bool = False) -> None:
        """Show ``result``; the selected file stays selected when it is still in a group. A
        new scan's result is regrouped with the remembered choices first, unless ``chosen``
        says that was done (in the scan's worker)."""
        keep = self._current_path()
        if new_scan and result is not None and not chosen:
            result = self.choices.apply(result)
        old_pairs = self.result.pairs if self.result is not None else None
        self.result = result
        self.model.set_result(result, keep_marks=not new_scan)
        self.problems_model.set_problems(result.problems if result is not None else ())
        if result is not None:
            self.threshold.set_range(result.floor)
            self.threshold.set_threshold(result.threshold)
            self.threshold.set_mode(str(result.group_mode))
            i = self.scan_panel.group_mode.findData(str(result.group_mode))
            self.scan_panel.group_mode.blockSignals(True)
            self.scan_panel.group_mode.setCurrentIndex(max(0, i))
            self.scan_panel.group_mode.blockSignals(False)
            if new_scan or result.pairs is not old_pairs:  # a trash or move took pairs away
                counts, edges = result.histogram(HISTOGRAM_BINS)
                self.threshold.set_histogram(counts, edges, int(result.pairs.exact.sum()))
        else:
            self.threshold.histogram.clear()
        self.tree.expand_groups()
        if self.tree.duplicates_only():
            self.tree.set_duplicates_only(True)
        if new_scan or result is None:
            self.preview.clear()
        elif keep:
            self._select_path(keep)
        n = len(result.problems) if result is not None else 0
        self.tabs.setTabText(1, self.tr("Problems ({n})").format(n=QLocale().toString(n)) if n
                             else self.tr("Problems"))
        self.excerpts_view.set_result(result)
        n = self.excerpts_view.excerpt_count()
        self.tabs.setTabText(2, self.tr("Excerpts ({n})").format(n=n) if n
                             else self.tr("Excerpts"))
        self._update_counts()
        self.update_actions()
        self.resultChanged.emit()

    def _on_filter(self, text: str) -> None:
        self.model.set_text_filter(text)
        self.tree.expand_groups()

    def _update_counts(self) -> None:
        r = self.result
        if r is None:
            self.counts.setText(self.tr("No results yet"))
            self.threshold.set_summary("")
            return
        groups = self.model.total_group_count()
        dupes = r.duplicate_count
        loc = QLocale()
        marked = self.model.marked_count()
        marked_bytes = self.model.marked_size()
        self.counts.setText(
            self.tr("Files scanned: {files}  ·  Groups: {groups}  ·  Duplicates: {dupes}  ·  "
                    "Marked: {marked}  ·  Problems: {problems}").format(
                files=loc.toString(len(r.documents)), groups=loc.toString(groups),
                dupes=loc.toString(dupes), problems=loc.toString(len(r.problems)),
                marked=self.tr("{n} ({size})").format(
                    n=loc.toString(marked), size=loc.formattedDataSize(marked_bytes))
                if marked else loc.toString(0)))
        self.threshold.set_summary(self.tr("{groups}, {dupes} at {t}").format(
            groups=self.tr("%Ln groups", "", groups), dupes=self.tr("%Ln duplicates", "", dupes),
            t=loc.toString(100 * r.threshold, "f", 1) + "%"))

    def update_actions(self) -> None:
        scanning = self.scan_worker is not None
        busy = scanning or self.busy_worker is not None
        have = self.result is not None
        groups = have and self.model.group_count() > 0
        docs = self.selected_docs()
        marked = self.model.marked_count() > 0
        self.act_scan.setEnabled(not busy)
        acting = self.file_actions.running()
        self.act_cancel.setEnabled(scanning or acting)
        self.act_cancel.setText(self.tr("Stop moving files") if acting and not scanning
                                else self.tr("Cancel scan"))
        self.act_open_results.setEnabled(not busy)
        for a in (self.act_save_results, self.act_export_csv, self.act_export_json,
                  self.act_export_html):
            a.setEnabled(have and not busy)
        for a in (self.act_mark_all, self.act_mark_folder):
            a.setEnabled(groups and not busy)
        self.act_unmark.setEnabled(marked and not busy)
        self.act_toggle.setEnabled(bool(docs) and not busy)
        self.act_mark_group.setEnabled(bool(self.selected_groups()) and not busy)
        self.act_open_file.setEnabled(len(docs) >= 1)
        self.act_reveal.setEnabled(len(docs) >= 1)
        self.act_compare.setEnabled(len(docs) == 2)
        self.act_read_as.setEnabled(len(docs) == 1 and not busy and self.result is not None
                                    and self.result.documents[docs[0]].format in ("txt", "html"))
        self.act_read_file_as.setEnabled(not busy)
        self.act_make_ref.setEnabled(len(docs) == 1 and not self._is_reference_selected()
                                     and not busy)
        self.act_ignore_pair.setEnabled(len(docs) == 1 and not self._is_reference_selected()
                                        and not busy)
        self.act_ignore_group.setEnabled(bool(self.selected_groups()) and not busy)
        self.act_trash.setEnabled(marked and not busy)
        self.act_move.setEnabled(marked and not busy)

    # ================================================================= selection
    def selected_rows(self) -> list[QModelIndex]:
        """The selected rows of the results tree (groups and members), column 0."""
        return self.tree.selectionModel().selectedRows(0)

    def selected_docs(self) -> list[int]:
        """Document indices of the selected member rows, in display order."""
        if self.result is None:
            return []
        docs = [self.model.doc_at(i) for i in self.selected_rows()]
        return list(dict.fromkeys(d for d in docs if d >= 0))

    def selected_groups(self) -> list[int]:
        if self.result is None:
            return []
        rows = [self.model.group_row_of(i) for i in self.selected_rows()]
        return sorted({r for r in rows if r >= 0})

    def _is_reference_selected(self) -> bool:
        return any(self.model.is_reference(i) for i in self.selected_rows())

    def _current_path(self) -> str | None:
        docs = self.selected_docs()
        if len(docs) == 1 and self.result is not None:
            return self.result.documents[docs[0]].path
        return None

    def _select_path(self, path: str) -> None:
        if self.result is None:
            return
        doc = self.result.document_index().get(path)
        if doc is not None:
            self._select_index(self.model.index_of_doc(doc))

    def select_member(self, group_row: int, member_row: int) -> None:
        """Select one member (by display rows) and make it current."""
        self._select_index(self.model.member_index(group_row, member_row))

    def _select_index(self, idx: QModelIndex) -> None:
        if idx.isValid():
            self.tree.selectionModel().setCurrentIndex(
                idx, QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows)
            self.tree.scrollTo(idx)

    def _on_selection(self, *_args: Any) -> None:
        self.update_actions()
        docs = self.selected_docs()
        if len(docs) != 1 or self.result is None:
            return
        idx = next(i for i in self.selected_rows() if self.model.doc_at(i) >= 0)
        g = self.model.group(self.model.group_row_of(idx))
        if self.model.is_reference(idx):
            # the reference: compare it with the most similar other member
            other = max(g.members[1:], key=lambda m: m.similarity)
            self._compare(g.reference, other.doc, other)
        else:
            self._compare(g.reference, docs[0], self.model.member(idx.parent().row(),
                                                                   idx.row()))

    def _compare(self, left: int, right: int, member: Member | None) -> int:
        assert self.result is not None
        docs = self.result.documents
        return self.preview.compare(Source(docs[left].path, docs[left].encoding),
                                    Source(docs[right].path, docs[right].encoding), member,
                                    self.result.options.max_size)

    def compare_selected(self) -> None:
        docs = self.selected_docs()
        if len(docs) != 2 or self.result is None:
            self.statusBar().showMessage(self.tr("Select exactly two files to compare"), 4000)
            return
        self._compare(docs[0], docs[1], self.result.compare(docs[0], docs[1]))

    def read_selected_as(self) -> None:
        path = self._current_path()
        if path is not None:
            self.read_as(path)

    def read_file_as(self) -> None:
        path = self.ask_text_file(self.tr("Text file to read in another encoding"))
        if path:
            self.read_as(os.path.abspath(path))

    def read_as(self, path: str) -> None:
        self.scans.read_as(path)

    def _make_encoding_dialog(self, path: str, current: str | None) -> EncodingDialog:
        return EncodingDialog(path, current, self)

    def _ask_text_file(self, title: str) -> str:
        start = self.settings.get(S.LAST_DIR) or os.path.expanduser("~")
        path, _ = QFileDialog.getOpenFileName(
            self, title, start,
            self.tr("Text files and web pages (*.txt *.text *.md *.csv *.html *.htm);;"
                    "All files (*)"))
        return path

    # ================================================================= marking
    def toggle_marks(self) -> None:
        self.model.toggle(self.selected_docs())

    def mark_all_but_reference(self) -> None:
        self._said_below_cut(self.model.mark_all_but_reference())

    def mark_all_below_cut_too(self) -> None:
        """The explicit choice: every duplicate, also those below the threshold."""
        self.model.mark_all_but_reference(below_cut=True)

    def _said_below_cut(self, skipped: int) -> None:
        if skipped:
            self.statusBar().showMessage(self.tr(
                "%Ln files below the threshold (in their group through another file) were "
                "not marked; Mark ▸ Mark all, also below the threshold marks them too.", "",
                skipped), 10_000)

    def mark_selected_groups(self) -> None:
        self._said_below_cut(self.model.mark_all_but_reference(self.selected_groups()))

    def mark_in_folder(self) -> None:
        folder = self.ask_folder(self.tr("Mark the duplicates inside this folder"))
        if not folder:
            return
        n = self.model.mark_in_folder(folder)
        self.statusBar().showMessage(self.tr("Marked %Ln files in {folder}", "", n).format(
            folder=folder), 6000)

    def unmark_all(self) -> None:
        self.model.unmark_all()

    # ================================================================= regrouping actions
    def make_reference(self) -> None:
        self.grouping.make_reference()

    def ignore_pair(self) -> None:
        self.grouping.ignore_pair()

    def ignore_group(self) -> None:
        self.grouping.ignore_group()

    # ================================================================= opening files
    def selected_paths(self) -> list[str]:
        if self.result is None:
            return []
        return [self.result.documents[d].path for d in self.selected_docs()]

    def open_selected(self) -> None:
        self.file_actions.open_selected()

    def reveal_selected(self) -> None:
        self.file_actions.reveal_selected()

    def problem_can_be_read_as(self, index: QModelIndex) -> bool:
        """A text file listed as a problem (binary, undecodable...) may just be in an encoding
        the detector did not consider, such as UTF-16 without a byte-order mark."""
        path = self.problems_model.data(index, Qt.ItemDataRole.UserRole)
        busy = self.scan_worker is not None or self.busy_worker is not None
        return bool(path) and not busy and \
            os.path.splitext(path)[1].lower() in ENCODED_SUFFIXES

    def read_problem_as(self, index: QModelIndex) -> None:
        if self.problem_can_be_read_as(index):
            self.read_as(self.problems_model.data(index, Qt.ItemDataRole.UserRole))

    # ================================================================= file actions
    def trash_marked(self) -> None:
        self.file_actions.act("trash")

    def move_marked(self) -> None:
        self.file_actions.act("move")

    def start_busy(self, worker: Worker, message: str) -> None:
        self.busy_worker = worker
        self.statusBar().showMessage(message)
        QApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
        self.update_actions()
        self.busyChanged.emit(True)
        self.host.start(worker)

    def end_busy(self) -> None:
        self.busy_worker = None
        QApplication.restoreOverrideCursor()
        self.statusBar().clearMessage()
        self.update_actions()
        self.busyChanged.emit(False)

    # ================================================================= export / sessions
    def export(self, fmt: str) -> None:
        self.results_io.export(fmt)

    def save_results(self) -> None:
        self.results_io.save()

    def open_results(self) -> None:
        self.results_io.open()

    # ================================================================= prompts (seams)
    def _ask_folder(self, title: str) -> str:
        return QFileDialog.getExistingDirectory(self, title, self.folder_dialog_start())

    def folder_dialog_start(self) -> str:
        """Where folder dialogs open: the scanned folder of the results shown (the files being
        acted on live there), else the last folder chosen."""
        if self.result is not None and self.result.roots:
            return self.result.roots[0]
        return self.settings.get(S.LAST_DIR)

    def _ask_save_path(self, title: str, name: str, filters: str) -> str:
        start = os.path.join(self.settings.get(S.LAST_EXPORT_DIR) or os.path.expanduser("~"),
                             name)
        path, _ = QFileDialog.getSaveFileName(self, title, start, filters)
        if path:
            self.settings.set(S.LAST_EXPORT_DIR, os.path.dirname(path))
        return path

    def _ask_open_path(self, title: str, filters: str) -> str:
        path, _ = QFileDialog.getOpenFileName(self, title,
                                              self.settings.get(S.LAST_EXPORT_DIR), filters)
        return path

    # ================================================================= misc
    def _toggle_setup(self) -> None:
        self.setup_area.setVisible(self.act_setup.isChecked())

    def fold_setup(self) -> None:
        """After a scan the set-up folds away, leaving the room to the results and the diff;
        F9 (View ▸ Scan set-up panel, or the toolbar) brings it back."""
        if self.act_setup.isChecked():
            self.act_setup.setChecked(False)
            self._toggle_setup()

    def set_diff_below(self, below: bool) -> None:
        """The diff below the results (stacked) or beside them (the default: more rows)."""
        self.results_split.setOrientation(Qt.Orientation.Vertical if below
                                          else Qt.Orientation.Horizontal)
        self.settings.set(S.DIFF_BELOW, below)
        if self.act_diff_below.isChecked() != below:
            self.act_diff_below.setChecked(below)

    def set_duplicates_only(self, on: bool) -> None:
        self.tree.set_duplicates_only(on)
        self.settings.set(S.DUPLICATES_ONLY, on)
        if self.act_dupes_only.isChecked() != on:
            self.act_dupes_only.setChecked(on)

    def show_ignored_pairs(self) -> None:
        dialog = self.make_ignored_dialog(self.choices, self)
        dialog.exec()
        self.grouping.forget_ignored(dialog.removed())

    def show_preferences(self) -> None:
        PreferencesDialog(self.settings, self.action_log_path, self).exec()

    def show_action_log(self) -> None:
        folder = os.path.dirname(self.action_log_path)
        os.makedirs(folder, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(folder))

    def show_about(self) -> None:
        from neardup_core import __version__

        QMessageBox.about(self, self.tr("About neardup"), self.tr(
            "<h3>neardup {v}</h3><p>Finds near-duplicate documents — plain text in any "
            "encoding and Word files — in Chinese and English alike.</p>"
            "<p>Action log: {log}</p>").format(v=__version__, log=self.action_log_path))

    def show_error(self, summary: str, exc: BaseException | None = None) -> None:
        details = "".join(traceback.format_exception(exc)) if exc is not None else ""
        if exc is not None:
            log.error("%s", summary, exc_info=exc)
        ErrorDialog(summary, details, log_file(), self).exec()


__all__ = ["MainWindow"]
