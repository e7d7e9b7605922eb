"""The Excerpts tab: documents mostly inside another, and where.

A table of excerpts (part, the whole it lies in, how much of it, how alike they are), the cut
they are shown from (moved without a rescan, down to the floor the scan kept), and below it the
part beside the whole with every shared passage highlighted in both; Next / Previous passage
(F8 / Shift+F8) bring the same passage to the middle of both sides, so the reader sees where
the part's text sits in the whole rather than a wall of deletions from the rest of the whole.

An excerpt is not a copy: nothing here marks a file. Acting on one (opening either file) is a
button the user presses for that file.

The two files are read again, and their shared passages found, in a worker thread (a long PDF
or .docx takes seconds), as the group preview reads its pair; an answer to a pair no longer
asked for is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QKeySequence, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from neardup_core.models import EXCERPT_FLOOR, Document
from neardup_core.pairs.containment import shared_passages
from neardup_core.result import ScanResult
from neardup_core.scan.isolated import text_and_why
from neardup_core.visible import visible

from ..i18n import core_text
from ..models.excerpts_model import ExcerptsModel
from ..workers import CallWorker, Worker

#: Characters of each text shown (a longer file is cut here, and the view says so).
MAX_CHARS = 400_000
_SHARED = QColor("#fff1b8")
_CURRENT = QColor("#ffc861")


def _plain(text: str) -> str:
    """Line breaks as the text panes hold them (one character each)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


Spans = list[tuple[tuple[int, int], tuple[int, int]]]


# What load_pair gives: the two texts (None: not readable again), their shared passages, and
# why the first unreadable one could not be read (the core's message, or None).
Loaded = tuple[str | None, str | None, Spans, str | None]


def load_pair(part: str, whole: str, options: Any) -> Loaded:
    """The texts of ``part`` and ``whole`` as the panes show them and their shared passages,
    read as the scan read them (in a worker's thread). A PDF is read within the scan's
    per-file limits, in a process of its own: it may have become a bomb since, which read
    here would take the window's memory."""
    (a, why_a), (b, why_b) = (text_and_why(part, options), text_and_why(whole, options))
    if a is None or b is None:
        return a, b, [], why_a if a is None else why_b
    # the panes count a line break as one character, as shared_passages must
    a, b = (_plain(t)[:MAX_CHARS] for t in (a, b))
    return a, b, shared_passages(a, b), None


def _load_asked(asked: tuple, options: Any) -> tuple[tuple, Loaded]:
    """(``asked``, :func:`load_pair` of its part and whole): never raises (a file that cannot
    be read again is said so)."""
    part, whole = asked[1], asked[2]
    try:
        return asked, load_pair(part.path, whole.path, options)
    except Exception:
        return asked, (None, None, [], None)


class ExcerptView(QWidget):
    """The Excerpts tab (see the module docstring). ``start`` runs a worker (the window's
    ``WorkerHost.start``); without it the pair is read on the calling thread."""

    #: a pair asked for is on screen (or said unreadable)
    pairShown = Signal()

    def __init__(self, parent: QWidget | None = None, *,
                 start: Callable[[Worker], object] | None = None) -> None:
        super().__init__(parent)
        self._start = start
        self._request = 0  # the pair asked for last: older answers are dropped
        self._result: ScanResult | None = None
        self._spans: Spans = []
        self._at = -1
        self._pair: tuple[Document, Document] | None = None

        self.model = ExcerptsModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)  # it sorts itself (see ExcerptsModel)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(ExcerptsModel.CONTAINMENT, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(0, 300)
        self.table.setColumnWidth(1, 300)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._show_current())
        # the excerpt shown stays in view when the list is sorted again (once it is sorted)
        self.table.horizontalHeader().sortIndicatorChanged.connect(lambda *_: QTimer.singleShot(
            0, lambda: self.table.scrollTo(self.table.currentIndex())))

        self.cut = QSpinBox()
        self.cut.setRange(round(EXCERPT_FLOOR * 100), 100)
        self.cut.setSuffix("%")
        self.cut.setValue(50)
        self.cut.setToolTip(self.tr("Show documents at least this much of whose text lies "
                                    "inside another (no rescan needed)"))
        self.cut.valueChanged.connect(self._refill)
        self.count = QLabel()
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Show excerpts from")))
        top.addWidget(self.cut)
        top.addWidget(QLabel(self.tr("of the text inside another file")))
        top.addStretch(1)
        top.addWidget(self.count)

        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.prev = QPushButton(self.tr("Previous passage"))
        self.prev.setShortcut(QKeySequence("Shift+F8"))
        self.prev.clicked.connect(lambda: self.jump(-1))
        self.next = QPushButton(self.tr("Next passage"))
        self.next.setShortcut(QKeySequence("F8"))
        self.next.clicked.connect(lambda: self.jump(1))
        self.open_part = QPushButton(self.tr("Open part"))
        self.open_part.clicked.connect(lambda: self._open(0))
        self.open_whole = QPushButton(self.tr("Open whole"))
        self.open_whole.clicked.connect(lambda: self._open(1))
        bar = QHBoxLayout()
        bar.addWidget(self.heading, 1)
        for b in (self.prev, self.next, self.open_part, self.open_whole):
            bar.addWidget(b)

        self.left = self._text_pane()
        self.right = self._text_pane()
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.left)
        sides.addWidget(self.right)
        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addLayout(bar)
        ll.addWidget(sides, 1)

        split = QSplitter(Qt.Orientation.Vertical)
        upper = QWidget()
        ul = QVBoxLayout(upper)
        ul.setContentsMargins(0, 4, 0, 0)
        ul.addLayout(top)
        ul.addWidget(self.table, 1)
        split.addWidget(upper)
        split.addWidget(lower)
        split.setSizes([200, 400])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)
        self._clear_pair()

    @staticmethod
    def _text_pane() -> QPlainTextEdit:
        p = QPlainTextEdit()
        p.setReadOnly(True)
        p.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        return p

    # -- the list ---------------------------------------------------------------------------
    def set_result(self, result: ScanResult | None) -> None:
        """Show ``result``'s excerpts, at the cut of its scan."""
        self._result = result
        if result is not None:
            self.cut.blockSignals(True)
            self.cut.setValue(round(result.excerpt_cut * 100))
            self.cut.blockSignals(False)
        self._refill()

    def _refill(self) -> None:
        changed = self.model.set_result(self._result, self.cut.value() / 100)
        n = self.model.rowCount()
        self.count.setText(self.tr("{n} excerpts").format(n=n))
        if not changed:
            return  # the same excerpts: the one shown stays
        self._clear_pair()
        if n:
            self.table.selectRow(0)

    def excerpt_count(self) -> int:
        return self.model.rowCount()

    # -- the pair ---------------------------------------------------------------------------
    def _clear_pair(self) -> None:
        self._request += 1
        self._pair, self._spans, self._at = None, [], -1
        self.left.clear()
        self.right.clear()
        self.heading.setText(self.tr("Select an excerpt to see where its text lies in the "
                                     "other file."))
        for b in (self.prev, self.next, self.open_part, self.open_whole):
            b.setEnabled(False)

    def _show_current(self) -> None:
        idx = self.table.selectionModel().currentIndex()
        if not idx.isValid() or self._result is None:
            self._clear_pair()
            return
        part, whole, c, s = self.model.excerpt(idx.row())
        if self._pair == (part, whole):
            return  # the same excerpt at another row (the list was sorted): shown already
        self.show_pair(part, whole, c, s)

    def show_pair(self, part: Document, whole: Document, containment: float,
                  similarity: float) -> None:
        """Read the two files again (in a worker when the view has ``start``) and show them
        side by side with their shared passages."""
        assert self._result is not None
        self._request += 1
        request = self._request
        self._pair = (part, whole)
        self.open_part.setEnabled(True)
        self.open_whole.setEnabled(True)
        self.prev.setEnabled(False)
        self.next.setEnabled(False)
        self._spans, self._at = [], -1
        self.left.clear()
        self.right.clear()
        self.heading.setText(self.tr("Reading {part} and {whole}…").format(
            part=visible(part.name), whole=visible(whole.name)))
        asked = (request, part, whole, containment, similarity)
        if self._start is None:
            self._loaded(_load_asked(asked, self._result.options))
            return
        # the answer comes back to a method of this view, which Qt calls on the window's
        # thread: a lambda here lost some answers when two readings ended close together
        worker = CallWorker(_load_asked, asked, self._result.options)
        worker.finished.connect(self._loaded)
        self._start(worker)

    def _loaded(self, answer: tuple[tuple, Loaded]) -> None:
        (request, part, whole, containment, similarity), got = answer
        if request != self._request:
            return  # another pair was asked for since
        a, b, spans, why = got
        if a is None or b is None:
            name = visible(part.name if a is None else whole.name)
            if why:  # the core's reason (a PDF past a limit, a file gone) in these words
                self.heading.setText(self.tr("{name} could not be read again: {why}").format(
                    name=name, why=core_text(why)))
            else:
                self.heading.setText(self.tr("{name} could not be read again (changed, moved "
                                             "or unreadable since the scan).").format(name=name))
            self.pairShown.emit()
            return
        self.left.setPlainText(a)
        self.right.setPlainText(b)
        self._spans = spans
        self._at = 0 if self._spans else -1
        self._summary = self.tr("{share} of {part} lies inside {whole} (similarity {sim})"
                                ).format(share=f"{containment:.0%}", part=visible(part.name),
                                         whole=visible(whole.name), sim=f"{similarity:.0%}")
        self._paint()
        self.pairShown.emit()

    def jump(self, step: int) -> None:
        """Bring the next (``step`` 1) or previous (-1) shared passage to both sides."""
        if not self._spans:
            return
        self._at = (self._at + step) % len(self._spans)
        self._paint()

    def current_passage(self) -> int:
        """The passage shown (0-based), -1 when none."""
        return self._at

    def passages(self) -> Spans:
        return list(self._spans)

    def _paint(self) -> None:
        n = len(self._spans)
        self.prev.setEnabled(n > 1)
        self.next.setEnabled(n > 1)
        if not n:
            self.heading.setText(self._summary + " · " + self.tr(
                "no passage of a few lines is shared word for word"))
            self.left.setExtraSelections([])
            self.right.setExtraSelections([])
            return
        self.heading.setText(self._summary + " · " + self.tr("passage {k} of {n}").format(
            k=self._at + 1, n=n))
        for pane, side in ((self.left, 0), (self.right, 1)):
            sels = []
            for k, spans in enumerate(self._spans):
                start, end = spans[side]
                sel = QTextEdit.ExtraSelection()
                fmt = QTextCharFormat()
                fmt.setBackground(_CURRENT if k == self._at else _SHARED)
                sel.format = fmt
                cur = QTextCursor(pane.document())
                cur.setPosition(start)
                cur.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                sel.cursor = cur
                sels.append(sel)
            pane.setExtraSelections(sels)
            start = self._spans[self._at][side][0]
            cur = QTextCursor(pane.document())
            cur.setPosition(start)
            pane.setTextCursor(cur)
            pane.centerCursor()
            # again once laid out: a pane shown for the first time has no height to centre in
            QTimer.singleShot(0, pane.centerCursor)

    def _open(self, which: int) -> None:
        if self._pair is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self._pair[which].path))
