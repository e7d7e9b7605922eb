"""Changing the grouping of the result on show: threshold, mode, references and ignored pairs.

Each change asks the core for a new ScanResult (``ScanResult.regroup``) and hands it to the
window, which shows it with one model reset; the result itself never changes.
"""

from __future__ import annotations

import itertools
from typing import Any

from PySide6.QtCore import QObject

from neardup_core.errors import OptionsError

from .. import settings as S
from ..choices import Choices


class GroupingController(QObject):
    """Regroups the window's result. ``window`` is the MainWindow (not imported: it imports
    us)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window

    def regroup(self, **kwargs: Any) -> None:
        """Show the result regrouped with ``kwargs`` (see ``ScanResult.regroup``)."""
        w = self.window
        if w.result is None:
            return
        try:
            new = w.result.regroup(**kwargs)
        except OptionsError as exc:
            w.statusBar().showMessage(str(exc), 6000)
            return
        w.set_result(new)

    def on_threshold(self, t: float) -> None:
        w = self.window
        w.settings.threshold = t
        if w.result is not None and abs(t - w.result.threshold) > 1e-9:
            self.regroup(threshold=max(t, w.result.floor))

    def on_mode(self, mode: str) -> None:
        w = self.window
        w.threshold.set_mode(mode)
        i = w.scan_panel.group_mode.findData(mode)
        w.scan_panel.group_mode.blockSignals(True)
        w.scan_panel.group_mode.setCurrentIndex(max(0, i))
        w.scan_panel.group_mode.blockSignals(False)
        w.settings.set(S.GROUP_MODE, mode)
        if w.result is not None and str(w.result.group_mode) != mode:
            self.regroup(mode=mode)

    def make_reference(self) -> None:
        w = self.window
        docs = w.selected_docs()
        if len(docs) != 1 or w.result is None:
            return
        w.model.set_marked(docs, False)
        w.choices.remember_reference(w.result.documents[docs[0]])  # kept for the next scan
        self.regroup(references=(*w.result.references, (docs[0],)))

    def ignore_pair(self) -> None:
        w = self.window
        if w.result is None:
            return
        rows = [i for i in w.selected_rows() if w.model.doc_at(i) >= 0]
        if len(rows) != 1 or w.model.is_reference(rows[0]):
            return
        g = w.model.group(w.model.group_row_of(rows[0]))
        d = w.result.documents
        pair = (d[g.reference].path, d[w.model.doc_at(rows[0])].path)
        w.choices.remember_ignored(w.result, {pair})  # kept for the next scan
        self.regroup(ignored=w.result.ignored | {pair})

    def ignore_group(self) -> None:
        w = self.window
        if w.result is None:
            return
        d = w.result.documents
        pairs = set(w.result.ignored)
        for row in w.selected_groups():
            paths = [d[m.doc].path for m in w.model.group(row).members]
            pairs.update(itertools.combinations(paths, 2))
        w.choices.remember_ignored(w.result, pairs - set(w.result.ignored))
        self.regroup(ignored=frozenset(pairs))

    def forget_ignored(self, keys: list[tuple[str, str]]) -> None:
        """Stop ignoring the remembered pairs ``keys``: in the store, and in the result on show
        (the pairs between files holding those contents group again)."""
        w = self.window
        if not keys:
            return
        store = w.choices
        gone = {k: store.ignored[k] for k in keys if k in store.ignored}
        if w.result is not None:
            dropped = Choices(store.path, dict(gone)).ignored_paths(w.result)
            dropped |= {(y, x) for x, y in dropped}
            store.forget_ignored(keys)
            self.regroup(ignored=frozenset(p for p in w.result.ignored if p not in dropped))
        else:
            store.forget_ignored(keys)
