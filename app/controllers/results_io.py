"""Results in and out of files: save and open a scan's results, export reports (CSV, JSON,
HTML). The writing and reading run in a worker; the window shows itself busy meanwhile."""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox

from neardup_core.errors import ReportError
from neardup_core.result import ScanResult

from ..i18n import core_text
from ..workers import CallWorker


class ResultsIOController(QObject):
    """Save, open and export for the window. ``window`` is the MainWindow (not imported: it
    imports us); its ``ask_save_path`` and ``ask_open_path`` are the seams."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window

    def export(self, fmt: str) -> None:
        w = self.window
        if w.result is None or w.busy_worker is not None:
            return
        filters = {"csv": self.tr("CSV spreadsheet (*.csv)"),
                   "json": self.tr("JSON (*.json)"),
                   "html": self.tr("HTML report (*.html)")}
        path = w.ask_save_path(self.tr("Export results"), f"neardup-results.{fmt}",
                               filters[fmt])
        if not path:
            return
        if not os.path.splitext(path)[1]:
            path += f".{fmt}"
        from neardup_core import report

        writer = {"csv": report.write_csv, "json": report.write_json,
                  "html": report.write_html}[fmt]
        self._run_file_job(CallWorker(writer, w.result, path),
                           self.tr("Exporting…"),
                           self.tr("Exported to {path}").format(path=path))

    def save(self) -> None:
        w = self.window
        if w.result is None or w.busy_worker is not None:
            return
        from neardup_core.store import results_file as session_file

        path = w.ask_save_path(self.tr("Save results"), f"scan{session_file.SUFFIX}",
                               self.tr("neardup results (*{suffix})").format(
                                   suffix=session_file.SUFFIX))
        if not path:
            return
        self._run_file_job(CallWorker(session_file.save_result, w.result, path),
                           self.tr("Saving…"), self.tr("Saved to {path}").format(path=path))

    def open(self) -> None:
        w = self.window
        if w.busy_worker is not None or w.scan_worker is not None:
            return
        from neardup_core.store import results_file as session_file

        path = w.ask_open_path(self.tr("Open results"),
                               self.tr("neardup results (*{suffix});;All files (*)").format(
                                   suffix=session_file.SUFFIX))
        if not path:
            return

        worker = CallWorker(_load_prepared, path, w.choices.snapshot())
        worker.finished.connect(lambda result: self._on_loaded(result, path))
        worker.errored.connect(self._on_file_job_error)
        w.start_busy(worker, self.tr("Opening…"))

    def _on_loaded(self, result: ScanResult, path: str) -> None:
        w = self.window
        w.end_busy()
        w.set_result(result, new_scan=True, chosen=True)  # applied and prepared in the worker
        w.grouping.warm(result)
        w.show_banner([self.tr("Results loaded from {path}. Files may have changed since "
                               "that scan.").format(path=path)])
        w.statusBar().showMessage(self.tr("Opened {path}").format(path=path), 8000)
        w.actionFinished.emit(None)

    def _run_file_job(self, worker: CallWorker, busy: str, done: str) -> None:
        worker.finished.connect(lambda _v: self._on_file_job_done(done))
        worker.errored.connect(self._on_file_job_error)
        self.window.start_busy(worker, busy)

    def _on_file_job_done(self, message: str) -> None:
        w = self.window
        w.end_busy()
        w.statusBar().showMessage(message, 10_000)
        w.actionFinished.emit(None)

    def _on_file_job_error(self, exc: BaseException) -> None:
        w = self.window
        w.end_busy()
        if isinstance(exc, ReportError | OSError | ValueError):
            QMessageBox.warning(w, self.tr("Could not read or write the file"),
                                core_text(str(exc)))
        else:
            w.show_error(str(exc), exc)
        w.actionFinished.emit(None)


def _load_prepared(path: str, choices: Any) -> ScanResult:
    """The results at ``path`` regrouped with the remembered ``choices``, their groups computed
    and prepared for moves, in the worker's thread, as a scan's worker hands its result over:
    the window computed the groups of a 200,000-file result on its own thread when it showed
    them (0.46-0.77 s)."""
    from neardup_core.store import results_file as session_file

    result = choices.applied(session_file.load_result(path))
    result.prepare_regroup()
    return result
