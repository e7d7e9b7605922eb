"""Is the GUI event loop ever blocked during a scan? A 10 ms QTimer heartbeat says.

The app's own scan worker (``app.workers.ScanWorker`` started by ``WorkerHost``) runs a full
scan of a folder in its QThread while the main thread's event loop handles a timer that ticks
every 10 ms and the worker's throttled progress signals (each updates a label, as the window
does). The largest gap between two ticks is the longest time the window could not repaint or
react to a click. Falls back to a bare QThread around ``ScanSession.run`` when the app's worker
cannot be imported. Runs offscreen, in its own process:

    QT_QPA_PLATFORM=offscreen python -m benchmarks.gui_heartbeat FOLDER OUT.json
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from pathlib import Path

TICK_MS = 10


def run(folder: str, *, use_cache: bool = False, cache_path: str | None = None) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot
    from PySide6.QtWidgets import QApplication, QLabel

    from neardup_core import ScanOptions

    app = QApplication.instance() or QApplication([])
    label = QLabel("idle")
    label.show()
    ticks: list[float] = []
    events = 0
    done: dict = {}
    opts = ScanOptions(use_cache=use_cache, cache_path=cache_path)

    seen: list[tuple[float, str]] = []

    def on_progress(ev: object) -> None:
        nonlocal events
        events += 1
        seen.append((time.perf_counter(), f"{getattr(ev, 'stage', '')} "
                                          f"{getattr(ev, 'done', '')}/{getattr(ev, 'total', '')}"))
        label.setText(f"{getattr(ev, 'stage', '')} {getattr(ev, 'done', '')}")

    def on_done(value: object) -> None:
        done["value"] = value
        done["t"] = time.perf_counter()
        app.quit()

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))

    keep: list[object] = []
    try:
        from app.workers import ScanWorker, WorkerHost

        host = WorkerHost()
        worker = ScanWorker(opts, [folder])
        worker.progress.connect(on_progress)
        worker.finished.connect(on_done)
        worker.errored.connect(on_done)
        keep += [host, worker]
        how = "app.workers.ScanWorker"

        def start() -> None:
            host.start(worker)
    except ImportError:
        from neardup_core import ScanSession, Throttled

        class _Bare(QObject):
            progress = Signal(object)
            finished = Signal(object)

            @Slot()
            def work(self) -> None:
                res = ScanSession(opts).run([folder], Throttled(self.progress.emit, 10.0))
                self.finished.emit(res)

        thread = QThread()
        bare = _Bare()
        bare.moveToThread(thread)
        thread.started.connect(bare.work)
        bare.progress.connect(on_progress)
        bare.finished.connect(on_done)
        keep += [thread, bare]
        how = "QThread around ScanSession.run"

        def start() -> None:
            thread.start()

    timer.start()
    t0 = time.perf_counter()
    QTimer.singleShot(0, start)
    app.exec()
    timer.stop()
    if how.startswith("QThread"):
        keep[0].quit()  # type: ignore[attr-defined]
        keep[0].wait()  # type: ignore[attr-defined]
    else:
        keep[0].wait()  # type: ignore[attr-defined]
    value = done.get("value")
    if isinstance(value, BaseException):
        return {"error": repr(value), "how": how}
    # the slider: one regroup on the main thread, as the window does it
    regroup_ms = None
    if value is not None and hasattr(value, "regroup"):
        t = time.perf_counter()
        _ = value.regroup(min(1.0, value.threshold + 0.1)).groups
        regroup_ms = (time.perf_counter() - t) * 1e3
    stamps = [t0, *ticks, done.get("t", time.perf_counter())]
    gaps = [(b - a) * 1e3 for a, b in itertools.pairwise(stamps)]
    gaps_sorted = sorted(gaps)

    def during(t: float) -> str:
        """The last progress event before ``t``: where the scan was when the loop stalled."""
        last = "start"
        for when, what in seen:
            if when > t:
                break
            last = what
        return last

    worst = sorted(range(len(gaps)), key=lambda i: -gaps[i])[:5]
    return {
        "how": how,
        "scan_seconds": done.get("t", t0) - t0,
        "documents": len(getattr(value, "documents", ())),
        "ticks": len(ticks),
        "progress_events": events,
        "max_gap_ms": max(gaps) if gaps else None,
        "p99_gap_ms": gaps_sorted[int(0.99 * (len(gaps_sorted) - 1))] if gaps else None,
        "gaps_over_100ms": sum(g > 100 for g in gaps),
        "gaps_over_50ms": sum(g > 50 for g in gaps),
        "regroup_on_main_thread_ms": regroup_ms,
        "worst_gaps": [f"{gaps[i]:.0f} ms at {stamps[i] - t0:.2f} s, after '{during(stamps[i])}'"
                       for i in worst],
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    folder, out = args[0], args[1]
    res = run(folder)
    Path(out).write_text(json.dumps(res), encoding="utf-8")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
