"""Changing the grouping of the result on show: threshold, mode, references and ignored pairs.

Each change asks the core for a new ScanResult (``ScanResult.regroup``) and hands it to the
window, which shows it with one model reset; the result itself never changes. A slider move
regroups only what it changes (milliseconds), but a long jump or a mode change on a result of
many documents groups it all (a second at 10^6): such a result is grouped in a worker thread
and shown when done, the newest request winning, so the window never stops answering. Once
such a result is shown, its groups at the thresholds a click on the slider's track lands on
are computed ahead in a worker thread (``ScanResult.warm_regroup``), after any move asked for.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from PySide6.QtCore import QObject

from neardup_core.errors import OptionsError

from .. import settings as S
from ..choices import Choices
from ..workers import CallWorker

# Results of at least this many documents are regrouped in a worker thread (smaller ones take
# milliseconds on the main thread, and show at once).
BACKGROUND_DOCUMENTS = 200_000


def _grouped_result(result: Any) -> Any:
    """``result`` with its groups computed (in the worker's thread)."""
    _ = result.group_table
    return result


def _prepare_and_warm(result: Any, stop: threading.Event | None) -> int:
    """Prepare ``result`` for moves, then (``stop`` given) group it ahead at the thresholds a
    click on the slider's track lands on until ``stop`` is set (in the worker's thread)."""
    result.prepare_regroup()
    return 0 if stop is None else result.warm_regroup(stop.is_set)


class GroupingController(QObject):
    """Regroups the window's result. ``window`` is the MainWindow (not imported: it imports
    us)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.background_documents = BACKGROUND_DOCUMENTS
        self._wanted: Any = None   # the newest result asked for, not shown yet
        self._shown: Any = None    # the result on show when it was asked for
        self._working = False      # a worker is grouping
        self._saying = ""          # the status bar's message while it does
        self._warming: threading.Event | None = None  # set: the warming ahead stops
        self._warmed: Any = None  # the result it groups ahead
        window.resultChanged.connect(self._on_result_changed)

    def latest(self) -> Any:
        """The result on show, or the newest one being grouped to replace it."""
        w = self.window
        if self._wanted is not None and w.result is self._shown:
            return self._wanted
        return w.result

    def regroup(self, **kwargs: Any) -> None:
        """Show the result regrouped with ``kwargs`` (see ``ScanResult.regroup``), on top of
        any regrouping still on its way."""
        w = self.window
        base = self.latest()
        if base is None:
            return
        if set(kwargs) - {"threshold"}:  # another regrouper: what was warmed does not serve
            self.stop_warming()
        try:
            new = base.regroup(**kwargs)
        except OptionsError as exc:
            w.statusBar().showMessage(str(exc), 6000)
            return
        if len(new.documents) < self.background_documents \
                or new.computed("group_table") is not None:
            self._wanted = None
            w.set_result(new)
            return
        self._wanted, self._shown = new, w.result
        if not self._working:
            self._group(new)

    def _group(self, new: Any) -> None:
        self._working = True
        # a long jump at 10^6 documents takes a few tenths of a second: say what is coming
        self._saying = self.tr("Regrouping at {share}…").format(
            share=f"{new.threshold * 100:.1f}%")
        self.window.statusBar().showMessage(self._saying)
        worker = CallWorker(_grouped_result, new)
        worker.finished.connect(self._grouped)
        worker.errored.connect(self._failed)
        self.window.host.start(worker)

    def _grouped(self, new: Any) -> None:
        self._working = False
        w = self.window
        self._said()  # (a newer request, grouped next, says so again)
        if self._wanted is None or w.result is not self._shown:
            self._wanted = None  # another result was shown meanwhile (a scan, an action)
            return
        if self._wanted is not new:  # asked for again while grouping: group the newest
            self._group(self._wanted)
            return
        self._wanted = None
        shown = w.result
        w.set_result(new)
        if not new.same_grouping(shown):  # a new regrouper (a mode, a reference...): prepared
            self.prepare(new)  # and warmed; a move of the threshold alone keeps the warming

    def prepare(self, result: Any) -> None:
        """Prepare ``result`` for the moves to come (its spanning forest, rooted: about a
        second at 10^6 documents) in a worker thread once it is shown: a change of mode,
        references or ignored pairs starts a regrouper that the scan's worker did not
        prepare, and so does a result opened from a file; its first long jump would otherwise
        wait for the forest. Then warm it (:meth:`warm`). Failing here costs nothing but
        that wait, so it is not reported."""
        stop = self._start_warming(result)
        self.window.host.start(CallWorker(_prepare_and_warm, result, stop))

    def warm(self, result: Any) -> None:
        """Group ``result`` (prepared, on show) ahead at the thresholds a click on the
        slider's track lands on, in a worker thread, when it is big enough to be regrouped
        in one (at 10^6 documents a long jump groups from scratch: 0.2-0.4 s; from a
        threshold computed ahead, a click takes nothing and any other jump a step)."""
        stop = self._start_warming(result)
        if stop is not None:
            self.window.host.start(CallWorker(result.warm_regroup, stop.is_set))

    def _start_warming(self, result: Any) -> threading.Event | None:
        """The stop of a new warming of ``result`` (None when it is too small to need one);
        the warming before it stops."""
        self.stop_warming()
        if result is None or len(result.documents) < self.background_documents:
            return None
        self._warming, self._warmed = threading.Event(), result
        return self._warming

    def _on_result_changed(self) -> None:
        shown = self.window.result
        if self._warming is not None and (shown is None
                                          or not shown.same_grouping(self._warmed)):
            self.stop_warming()

    def stop_warming(self) -> None:
        """Stop computing ahead (another result is shown, the window closes): the threshold
        being grouped is finished, no other is started."""
        if self._warming is not None:
            self._warming.set()
        self._warming = self._warmed = None

    def _failed(self, exc: BaseException) -> None:
        self._working = False
        self._wanted = None
        self._saying = ""
        self.window.statusBar().showMessage(str(exc), 6000)

    def _said(self) -> None:
        """The regroup is over: its message goes, unless something else was said since."""
        bar = self.window.statusBar()
        if self._saying and bar.currentMessage() == self._saying:
            bar.clearMessage()
        self._saying = ""

    def on_threshold(self, t: float) -> None:
        w = self.window
        w.settings.threshold = t
        base = self.latest()
        if base is not None and abs(t - base.threshold) > 1e-9:
            self.regroup(threshold=max(t, base.floor))

    def on_mode(self, mode: str) -> None:
        w = self.window
        w.threshold.set_mode(mode)
        i = w.scan_panel.group_mode.findData(mode)
        w.scan_panel.group_mode.blockSignals(True)
        w.scan_panel.group_mode.setCurrentIndex(max(0, i))
        w.scan_panel.group_mode.blockSignals(False)
        w.settings.set(S.GROUP_MODE, mode)
        base = self.latest()
        if base is not None and str(base.group_mode) != mode:
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
