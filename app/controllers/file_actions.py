"""Acting on files: trash or move the marked ones through ``neardup_core.actions`` (planned,
confirmed in a dialog, run in a worker, written to the action log), and open or reveal them.

Planning checks every file on disk (each marked file and each copy that is to stay must still
be the file the scan saw): at 200,000 files, 85,000 marked, that took 3.6 s, so a big selection
is planned in a worker too, the window saying so, and the dialog opens when it is done.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from PySide6.QtCore import QLocale, QModelIndex, QObject, QProcess, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox

from neardup_core import actions
from neardup_core.errors import ActionError
from neardup_core.progress import CancelToken
from neardup_core.visible import visible

from ..i18n import core_text
from ..workers import CallWorker

#: Marked files from which planning runs in a worker (below: at once, a few milliseconds).
PLAN_IN_WORKER_FROM = 2000
#: Files not changed that the message after a trash or move names one by one
DETAILED_AT_MOST = 500


class FileActionsController(QObject):
    """Trash, move, open and reveal for the window. ``window`` is the MainWindow (not imported:
    it imports us); its ``confirm``, ``ask_folder`` and ``trash_function`` are the seams."""

    #: (files gone through, files in all) while a trash or move runs, from its worker
    acting = Signal(int, int)

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self._cancel: CancelToken | None = None  # the trash or move running, to cancel it
        self._saying = ""
        self.acting.connect(self._on_acting)

    def running(self) -> bool:
        """Whether a trash or move is running (and can be cancelled)."""
        return self._cancel is not None

    def cancel(self) -> None:
        """Stop the running trash or move before its next file: what was done stays done."""
        if self._cancel is not None:
            self._cancel.cancel()
            self.window.statusBar().showMessage(self.tr("Stopping after this file…"))

    # ================================================================= opening files
    def open_selected(self) -> None:
        for p in self.window.selected_paths()[:10]:
            QDesktopServices.openUrl(QUrl.fromLocalFile(p))

    def reveal_selected(self) -> None:
        for p in self.window.selected_paths()[:10]:
            reveal_in_file_manager(p)

    def reveal_problem(self, index: QModelIndex) -> None:
        path = self.window.problems_model.data(index, Qt.ItemDataRole.UserRole)
        if path:
            reveal_in_file_manager(path)

    # ================================================================= trash and move
    def act(self, action: str) -> None:
        """Plan ``action`` ("trash" or "move") for the marked files, confirm it, run it."""
        w = self.window
        if w.result is None or w.busy_worker is not None or w.scan_worker is not None:
            return
        docs = w.model.marked_docs()
        if not docs:
            QMessageBox.information(w, self.tr("Nothing marked"),
                                    self.tr("Mark the files first: tick their boxes, press "
                                            "Space, or use the Mark menu."))
            return
        result = w.result
        if action == "trash":
            planning: tuple[Any, ...] = (actions.plan_trash, result, docs)
        else:
            folder = w.ask_folder(self.tr("Move the marked files into"))
            if not folder:
                return
            planning = (actions.plan_move, result, docs, folder)
        if len(docs) < PLAN_IN_WORKER_FROM:
            try:
                plan = planning[0](*planning[1:])
            except (ActionError, ValueError, OSError) as exc:
                self._plan_failed(exc, busy=False)
                return
            self._planned(result, plan, busy=False)
            return
        worker = CallWorker(*planning)
        worker.finished.connect(lambda plan: self._planned(result, plan, busy=True))
        worker.errored.connect(lambda exc: self._plan_failed(exc, busy=True))
        w.start_busy(worker, self.tr("Checking %Ln files…", "", len(docs)))

    def _plan_failed(self, exc: BaseException, *, busy: bool) -> None:
        w = self.window
        if busy:
            w.end_busy()
        if not isinstance(exc, (ActionError, ValueError, OSError)):
            w.show_error(self.tr("The file action failed: {err}").format(err=exc), exc)
            return
        said = (f"{visible(exc.path)}: {visible(core_text(exc.message))}"
                if isinstance(exc, ActionError) else str(exc))
        QMessageBox.warning(w, self.tr("Cannot do that"), said)

    def _planned(self, result: Any, plan: actions.ActionPlan, *, busy: bool) -> None:
        """Confirm ``plan`` (made for ``result``) and run it."""
        w = self.window
        if busy:
            w.end_busy()
        if w.result is not result:  # regrouped or rescanned while the files were checked
            w.statusBar().showMessage(self.tr("The groups changed while the files were "
                                              "checked: nothing was changed"), 8000)
            return
        if not plan.items:
            reasons = "\n".join(f"• {visible(os.path.basename(r.path))}: "
                                f"{visible(core_text(r.reason))}" for r in plan.refused[:20])
            QMessageBox.information(w, self.tr("Nothing to do"),
                                    self.tr("None of the marked files can be acted on:\n{why}")
                                    .format(why=reasons))
            return
        conf = w.confirm(w, plan, w.result, w.action_log_path)
        if conf is None:
            w.statusBar().showMessage(self.tr("Nothing was changed"), 4000)
            return
        self._cancel = CancelToken()
        worker = CallWorker(actions.execute, plan, confirmed=True,
                            allow_changed=conf.allow_changed, trash=w.trash_function,
                            log=actions.ActionLog(w.action_log_path),
                            progress=self.acting.emit, cancel=self._cancel)
        worker.finished.connect(self._on_done)
        worker.errored.connect(self._on_error)
        self._saying = (self.tr("Sending files to the trash…") if plan.action == "trash"
                        else self.tr("Moving files…"))
        w.start_busy(worker, self._saying)

    def _on_acting(self, k: int, n: int) -> None:
        """How far the running trash or move is, in the status bar (85,000 files: 15-20 s)."""
        if self._cancel is None or self._cancel.cancelled:
            return
        loc = QLocale()
        self.window.statusBar().showMessage(self.tr("{doing} {k} of {n}").format(
            doing=self._saying, k=loc.toString(k), n=loc.toString(n)))

    def _on_done(self, report: actions.ActionReport) -> None:
        w = self.window
        self._cancel = None
        w.end_busy()
        gone = list(report.done)
        if gone and w.result is not None:
            w.set_result(actions.remove_documents(w.result, gone))
        summary = self.tr("%Ln files done. Log: {log}", "", len(report.done)).format(
            log=w.action_log_path)
        w.statusBar().showMessage(summary, 15_000)
        if not report.ok or report.notes:
            outcomes = (*report.failed, *report.skipped)
            lines = [f"• {visible(o.path)}: {visible(core_text(o.message))}"
                     for o in outcomes[:DETAILED_AT_MOST]]
            if len(outcomes) > DETAILED_AT_MOST:  # (a cancel skips thousands: the log has all)
                lines.append(self.tr("… and %Ln more, in the log", "",
                                     len(outcomes) - DETAILED_AT_MOST))
            box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Some files were not changed"),
                              self.tr("{done} done, {failed} failed, {skipped} skipped.")
                              .format(done=len(report.done), failed=len(report.failed),
                                      skipped=len(report.skipped)), parent=w)
            box.setDetailedText("\n".join(lines + [core_text(n) for n in report.notes]))
            box.setInformativeText(summary)
            box.open()
        w.actionFinished.emit(report)

    def _on_error(self, exc: BaseException) -> None:
        w = self.window
        self._cancel = None
        w.end_busy()
        w.show_error(self.tr("The file action failed: {err}").format(err=exc), exc)
        w.actionFinished.emit(None)


def reveal_in_file_manager(path: str) -> None:
    """Show ``path`` in the system's file manager, selected where the platform allows it."""
    if sys.platform.startswith("win"):
        QProcess.startDetached("explorer", ["/select,", os.path.normpath(path)])
    elif sys.platform == "darwin":
        QProcess.startDetached("open", ["-R", path])
    else:
        QDesktopServices.openUrl(QUrl.fromLocalFile(os.path.dirname(path)))
