"""Starting, following and cancelling a scan through the ScanWorker, and re-reading a file in
an encoding the user chose (which scans again: the cache answers every other file)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox

from neardup_core.errors import OptionsError, PathError
from neardup_core.extract.walk import check_roots
from neardup_core.models import MiB, ScanOptions
from neardup_core.result import ScanResult
from neardup_core.visible import visible

from .. import settings as S
from ..i18n import core_text
from ..workers import ScanWorker
from .explain import explain


class ScanController(QObject):
    """Runs the window's scans. ``window`` is the MainWindow (not imported: it imports us)."""

    def __init__(self, window: Any,
                 session_factory: Callable[[ScanOptions], Any] | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.session_factory = session_factory
        self.worker: ScanWorker | None = None

    def start(self) -> None:
        w = self.window
        if self.worker is not None or w.busy_worker is not None:
            return
        folders = w.scan_panel.folders.folders()
        if not folders:
            QMessageBox.information(w, self.tr("Nothing to scan"),
                                    self.tr("Add at least one folder to scan: use “Add…” or "
                                            "drop folders on the window."))
            return
        try:
            options = w.scan_panel.build_options(w.threshold.threshold())
            chosen = w.settings.encodings
            options = dataclasses.replace(  # the cache's bounds, from the preferences
                options, cache_limit=w.settings.get(S.CACHE_LIMIT_MIB) * MiB,
                cache_days=w.settings.get(S.CACHE_DAYS),
                encodings=tuple(chosen.items()) if chosen else options.encodings)
            options.validate()
        except OptionsError as exc:
            self._show_options_error(exc)
            return
        try:
            check_roots(folders)  # the engine's check: says "permission denied" when it is
        except PathError as exc:
            self._show_path_error(exc.path, exc.message)
            return
        w.scan_panel.save(w.settings)
        w.grouping.stop_warming()  # the scan needs the cores more than the result on show
        kwargs = {} if self.session_factory is None else {"session_factory":
                                                         self.session_factory}
        worker = ScanWorker(options, folders, finish=w.choices.snapshot().applied, **kwargs)
        worker.progress.connect(w.progress.update_event)
        worker.finished.connect(self._on_finished)
        worker.errored.connect(self._on_error)
        self.worker = worker
        w.progress.start()
        w.banner.hide()
        self._set_running(True)
        w.statusBar().showMessage(self.tr("Scanning…"))
        w.host.start(worker)

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.window.statusBar().showMessage(self.tr("Cancelling…"))

    def _set_running(self, running: bool) -> None:
        w = self.window
        w.scan_panel.set_running(running)
        w.progress.setVisible(running)
        w.update_actions()
        w.busyChanged.emit(running)

    def _on_finished(self, result: ScanResult) -> None:
        w = self.window
        cancelled = self.worker is not None and self.worker.cancelled
        self.worker = None
        self._set_running(False)
        w.set_result(result, new_scan=True, chosen=True)  # the worker applied the choices
        w.grouping.warm(result)  # and prepared it
        if result.partial or cancelled:
            lines = [self.tr("Scan cancelled — showing what was found so far.")
                     if cancelled else self.tr("The scan was cut short — showing what was "
                                               "found so far.")]
            w.show_banner(lines + [core_text(n) for n in result.notes])
            w.statusBar().showMessage(lines[0], 8000)
        else:
            if result.groups:
                w.fold_setup()  # the room goes to the results and the diff
            lines = explain(result) + [core_text(n) for n in result.notes]
            if lines:
                w.show_banner(lines)
            w.statusBar().showMessage(
                self.tr("Scan finished in {s} s").format(s=f"{result.seconds:.1f}"), 8000)
        w.scanFinished.emit()

    def _on_error(self, exc: BaseException) -> None:
        w = self.window
        self.worker = None
        self._set_running(False)
        w.statusBar().clearMessage()
        if isinstance(exc, OptionsError):
            self._show_options_error(exc)
        elif isinstance(exc, PathError):
            self._show_path_error(exc.path, exc.message)
        else:
            w.show_error(self.tr("The scan failed: {err}").format(err=exc), exc)
        w.scanFinished.emit()

    def _show_options_error(self, exc: OptionsError) -> None:
        QMessageBox.warning(self.window, self.tr("Cannot start the scan"),
                            self.tr("The option “{option}” is not valid: {message}").format(
                                option=exc.option, message=exc.message))

    def _show_path_error(self, path: str, message: str | None = None) -> None:
        # the engine's own reason when there is one: "permission denied" is not "not found"
        if message and message not in ("no such folder", "not a folder"):
            QMessageBox.warning(self.window, self.tr("Cannot scan this folder"),
                                f"{visible(path)}\n\n{visible(message)}")
            return
        QMessageBox.warning(self.window, self.tr("Folder not found"),
                            self.tr("This folder does not exist or is not a folder:\n{path}")
                            .format(path=path))

    def read_as(self, path: str) -> None:
        """Ask which encoding ``path`` is in; on a change, keep the choice and scan again (the
        cache answers every other file, so only this one is read)."""
        w = self.window
        chosen = w.settings.encodings
        dialog = w.make_encoding_dialog(path, chosen.get(path))
        if not dialog.exec():
            return
        if dialog.choice == chosen.get(path):
            return
        if dialog.choice is None:
            chosen.pop(path, None)
        else:
            chosen[path] = dialog.choice
        w.settings.encodings = chosen
        w.settings.sync()
        name = os.path.basename(path)
        w.statusBar().showMessage(
            self.tr("{name} will be read as {enc}").format(name=name, enc=dialog.choice)
            if dialog.choice else
            self.tr("{name} will be read in the encoding detected").format(name=name), 8000)
        if w.scan_panel.folders.folders() and self.worker is None and \
                w.busy_worker is None:
            self.start()
