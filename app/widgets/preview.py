"""The lower half of the results: the diff of a file against its reference, loaded off-thread.

Texts are read with the same extractor (and encoding) the scan used, and diffed, in a worker, so
selecting a 30 MB .docx never freezes the window. Each request is numbered; an answer to an
older question (the user clicked on) is dropped.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from neardup_core.models import Member
from neardup_core.visible import visible

from ..i18n import core_text
from ..models.presentation import format_percent, format_share
from ..workers import LoadedPair, PairLoader, Source, WorkerHost
from .diff_view import DiffView


class PreviewPane(QWidget):
    loaded = Signal(int)  # request number, once the diff is on screen

    def __init__(self, host: WorkerHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._host = host
        self._request = 0
        self._header = ""
        self.diff = DiffView()
        self.placeholder = QLabel(self.tr("Select a file to compare it with its group's "
                                          "reference, or select two files and choose "
                                          "“Compare two selected”."))
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setEnabled(False)
        self.loading = QLabel()
        self.loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.loading)
        self.stack.addWidget(self.diff)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.stack)

    def request_count(self) -> int:
        return self._request

    def clear(self) -> None:
        self._request += 1
        self.diff.clear()
        self.stack.setCurrentWidget(self.placeholder)

    def compare(self, left: Source, right: Source, member: Member | None,
                max_bytes: int) -> int:
        """Show ``right`` against ``left``; returns the request number (see ``loaded``)."""
        self._request += 1
        self._header = self.header_text(member)
        self.loading.setText(self.tr("Reading {a} and {b}…").format(
            a=os.path.basename(left.path), b=os.path.basename(right.path)))
        self.stack.setCurrentWidget(self.loading)
        loader = PairLoader(self._request, left, right, max_bytes=max_bytes)
        loader.finished.connect(self._show)
        loader.errored.connect(self._failed)
        self._host.start(loader)
        return self._request

    def header_text(self, member: Member | None) -> str:
        if member is None:
            return ""
        parts = [self.tr("Similarity {p}").format(p=format_percent(member.similarity)),
                 self.tr("SimHash distance {d} of 64 bits").format(d=member.distance)]
        if member.jaccard is not None:
            parts.append(self.tr("Jaccard estimate {j}").format(j=format_share(member.jaccard)))
        return " · ".join(parts)

    def _show(self, pair: LoadedPair) -> None:
        if pair.request != self._request:
            return
        header = self._header
        # the core's words in the interface's language (a PDF past a limit, a file gone)
        problems = [f"{visible(os.path.basename(t.path))}: {core_text(t.problem)}"
                    for t in (pair.left, pair.right) if t.problem]
        if problems:
            header = " · ".join([header, self.tr("could not read"), *problems]).strip(" ·")
        if pair.diff is not None:
            self.diff.set_diff(pair.left.path, pair.right.path, pair.diff, header=header)
        else:
            self.diff.set_pair(pair.left.path, pair.left.text, pair.right.path,
                               pair.right.text, header=header)
        self.stack.setCurrentWidget(self.diff)
        self.loaded.emit(pair.request)

    def _failed(self, exc: BaseException) -> None:
        self.loading.setText(self.tr("Could not read the files: {err}").format(err=exc))
