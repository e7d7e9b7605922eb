"""``python -m benchmarks.gui_actions FOLDER [--cache-home DIR]``: how long the app's window is
held by what a user does after a scan of a real folder.

``gui_heartbeat --slider`` moves the threshold on a synthetic result, whose documents have no
files and no excerpts; a real folder has both. Here the window scans ``FOLDER`` as a user's
click does (its own scan controller and worker; with ``--cache-home``, the fingerprint cache
under that folder, as ``$XDG_CACHE_HOME``) and then, one after another, what a user does
(:func:`_actions`): a change of grouping mode, a click on the threshold slider's track, a pick
on the histogram, marking, filtering, a member's diff, the Excerpts tab and its cut, exporting
the HTML report, saving the results and opening them again (the files in a temporary
folder). For each: the wall-clock milliseconds until it is done (its result shown, the worker
threads idle) and the longest the window's event loop was held meanwhile (a 10 ms
heartbeat's largest gap), which is what a user feels as a frozen window. On the 200,000-file
benchmark folder, before the twenty-third session a histogram pick held the window 1.9 s and
a move of the excerpts' cut 1.2 s (the excerpts' sort proxy asked for every row in Python).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

TICK_MS = 10
#: An action not done after this long fails the benchmark rather than hanging it.
ACTION_TIMEOUT_S = 300.0


def _actions(w: Any, out: str) -> list[tuple[str, Callable[[], object], Callable[[], bool]]]:
    """(name, what the user does, whether it is done) for the window ``w`` on show; the files
    the actions write go into the folder ``out``."""

    def idle() -> bool:
        return not w.host.busy()

    def mode_is(mode: str) -> Callable[[], bool]:
        return lambda: str(w.result.group_mode) == mode and idle()

    start = w.result.threshold
    w.ask_save_path = lambda _title, name, _filters: os.path.join(out, name)
    w.ask_open_path = lambda _title, _filters: os.path.join(
        out, next(f for f in os.listdir(out) if not f.endswith(".html")))
    step = min(1.0, round(start + 0.05, 3))

    def first_member() -> None:
        model = w.tree.model()
        group = model.index(0, 0)
        if group.isValid() and model.rowCount(group) > 1:
            w.tree.setCurrentIndex(model.index(1, 0, group))

    return [
        ("settle", lambda: None, idle),
        ("mode connected", lambda: w.grouping.on_mode("connected"), mode_is("connected")),
        ("slider page step", lambda: w.threshold.slider.triggerAction(
            w.threshold.slider.SliderAction.SliderPageStepAdd),
         lambda: abs(w.result.threshold - step) < 1e-9 and idle()),
        ("histogram pick 0.83", lambda: w.threshold._from_histogram(0.83),
         lambda: abs(w.result.threshold - 0.83) < 1e-9 and idle()),
        ("mark all but reference", w.mark_all_but_reference, idle),
        ("filter typed", lambda: w.filter.setText("contract"), idle),
        ("filter cleared", lambda: w.filter.setText(""), idle),
        ("a member's diff", first_member, idle),
        ("excerpts tab", lambda: w.tabs.setCurrentIndex(2), idle),
        ("excerpts cut 80%", lambda: w.excerpts_view.cut.setValue(80), idle),
        ("mode cohesive", lambda: w.grouping.on_mode("cohesive"), mode_is("cohesive")),
        ("export HTML", lambda: w.export("html"), lambda: w.busy_worker is None and idle()),
        ("save results", w.save_results, lambda: w.busy_worker is None and idle()),
        ("open results", w.open_results, lambda: w.busy_worker is None and idle()),
    ]


def measure(folder: str) -> dict:
    """Scan ``folder`` in the app's window, then time each action (see the module)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from neardup_core.heap import hold_freed_pages, one_arena

    one_arena()  # as the app's main does at start
    hold_freed_pages()
    from app.main_window import MainWindow
    from app.settings import Settings

    app = QApplication.instance() or QApplication([])
    ticks: list[float] = []
    beat = QTimer()
    beat.setInterval(TICK_MS)
    beat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    out: dict = {"folder": folder, "actions": {}}
    with tempfile.TemporaryDirectory() as tmp:
        w = MainWindow(Settings.from_file(os.path.join(tmp, "settings.ini")),
                       folders=[folder], trash=lambda _p: None,
                       action_log=os.path.join(tmp, "actions.log"))
        w.resize(1400, 900)
        w.show()
        waiting = QEventLoop()
        w.scanFinished.connect(waiting.quit)
        t = time.perf_counter()
        QTimer.singleShot(0, w.start_scan)
        waiting.exec()
        out["scan_s"] = round(time.perf_counter() - t, 2)
        if w.result is None:
            raise RuntimeError(f"the scan of {folder} gave no result")
        out["documents"] = len(w.result.documents)
        beat.start()
        check = QTimer()  # the loop below sleeps until this asks (no polling of the GIL)
        check.setInterval(5)
        written = os.path.join(tmp, "written")  # (removed with the rest: nothing left behind)
        os.mkdir(written)
        for name, act, done in _actions(w, written):
            t = time.perf_counter()
            ticks[:] = [t]
            act()
            loop = QEventLoop()

            def look(done: Callable[[], bool] = done, loop: QEventLoop = loop,
                     since: float = t) -> None:
                if done() or time.perf_counter() - since > ACTION_TIMEOUT_S:
                    loop.quit()

            check.timeout.connect(look)
            check.start()
            loop.exec()
            check.stop()
            check.timeout.disconnect(look)
            if not done():
                raise TimeoutError(f"{name!r} not done after {ACTION_TIMEOUT_S:.0f} s")
            app.processEvents()
            end = time.perf_counter()
            stamps = [*ticks, end]
            held = max(b - a for a, b in itertools.pairwise(stamps))
            out["actions"][name] = {"ms": round((end - t) * 1e3), "held_ms": round(held * 1e3)}
        beat.stop()
        w.close()
        w.deleteLater()
        app.processEvents()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.gui_actions",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--cache-home", metavar="DIR",
                    help="the fingerprint cache's folder ($XDG_CACHE_HOME; default: yours)")
    args = ap.parse_args(argv)
    if args.cache_home:
        os.environ["XDG_CACHE_HOME"] = os.path.abspath(args.cache_home)
    got = measure(args.folder)
    print(json.dumps(got))
    for name, v in got["actions"].items():
        print(f"{name:24s} {v['ms']:7d} ms   window held at most {v['held_ms']:5d} ms",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
