"""Workers report through signals, never raise out of run(), and stop when cancelled."""

from __future__ import annotations

import threading

import _app_factory as factory
import pytest

from app.workers import LoadedPair, PairLoader, ScanWorker, Source, WorkerHost, load_text
from neardup_core.errors import PathError
from neardup_core.models import Problem, ProblemKind, ScanOptions
from neardup_core.progress import ProgressEvent, Stage


class FakeSession:
    """Reports progress for ``steps`` files and honours the cancel token like the real one."""

    def __init__(self, result, steps: int = 5, block: threading.Event | None = None,
                 fail: BaseException | None = None) -> None:
        self.result, self.steps, self.block, self.fail = result, steps, block, fail
        self.thread: threading.Thread | None = None

    def __call__(self, options):
        return self

    def run(self, paths, progress, cancel):
        self.thread = threading.current_thread()
        if self.fail is not None:
            raise self.fail
        for i in range(self.steps + 1):
            progress(ProgressEvent(Stage.READ, i, self.steps, f"file {i}", 0.1 * i))
        if self.block is not None:
            while not cancel.wait(0.01):
                pass
            return _partial(self.result)
        return self.result


def _partial(result):
    import dataclasses

    return dataclasses.replace(result, partial=True, notes=("cancelled",))


@pytest.fixture
def result(tmp_path):
    return factory.on_disk(tmp_path, {"a.txt": "same", "b.txt": "same"})


def test_scan_worker_reports_progress_and_result(qtbot, result):
    fake = FakeSession(result)
    host = WorkerHost()
    worker = ScanWorker(ScanOptions(), ["/x"], session_factory=fake, rate=0)
    events: list[ProgressEvent] = []
    started: list[bool] = []
    worker.progress.connect(events.append)
    worker.started.connect(lambda: started.append(True))
    with qtbot.waitSignal(worker.finished, timeout=10_000) as blocker:
        host.start(worker)
    assert blocker.args[0] is result
    assert started == [True]
    qtbot.waitUntil(lambda: len(events) == 6)
    assert [e.done for e in events] == list(range(6))
    assert fake.thread is not threading.main_thread()
    assert host.wait(5000)
    assert not host.busy()


def test_scan_worker_emits_errored_instead_of_raising(qtbot, result):
    host = WorkerHost()
    worker = ScanWorker(ScanOptions(), ["/nope"],
                        session_factory=FakeSession(result, fail=PathError("/nope", "missing")))
    with qtbot.waitSignal(worker.errored, timeout=10_000) as blocker:
        host.start(worker)
    assert isinstance(blocker.args[0], PathError)
    host.wait(5000)


def test_cancel_returns_the_partial_result(qtbot, result):
    host = WorkerHost()
    worker = ScanWorker(ScanOptions(), ["/x"],
                        session_factory=FakeSession(result, block=threading.Event()))
    # (a list, connected for the worker's whole life, not a blocker: the worker's thread emits
    # progress again while the blocker lets go, and PySide 6.11 then delivers the queued call
    # to a blocker already freed, a crash once in a few hundred runs)
    seen: list[ProgressEvent] = []
    worker.progress.connect(seen.append)
    host.start(worker)
    qtbot.waitUntil(lambda: bool(seen), timeout=10_000)
    with qtbot.waitSignal(worker.finished, timeout=10_000) as blocker:
        worker.cancel()
    assert blocker.args[0].partial
    assert worker.cancelled
    host.wait(5000)


def test_real_scan_in_a_worker(qtbot, tmp_path):
    text = "这是一段用于测试的中文文本，讲述城市交通的发展与变化。" * 20
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    (tmp_path / "b.txt").write_bytes(text.encode("gb18030"))
    host = WorkerHost()
    worker = ScanWorker(ScanOptions(use_cache=False, jobs=1), [str(tmp_path)])
    with qtbot.waitSignal(worker.finished, timeout=60_000) as blocker:
        host.start(worker)
    result = blocker.args[0]
    assert len(result.groups) == 1 and result.groups[0].exact
    host.wait(5000)


def test_pair_loader_reads_both_sides_off_thread(qtbot):
    seen: list[str] = []

    def extract(path: str, *, max_bytes: int, encoding: str | None = None):
        assert max_bytes == 1000
        seen.append(threading.current_thread().name)
        if path.endswith("bad"):
            return Problem(path, ProblemKind.CORRUPT, "bad zip")
        return type("E", (), {"text": f"text of {path}"})()

    host = WorkerHost()
    loader = PairLoader(7, Source("/x/left", "utf-8"), Source("/x/bad"), max_bytes=1000,
                        extract=extract, differ=lambda a, b: (a, b))
    with qtbot.waitSignal(loader.finished, timeout=10_000) as blocker:
        host.start(loader)
    pair: LoadedPair = blocker.args[0]
    assert pair.request == 7
    assert pair.left.text == "text of /x/left" and pair.left.problem is None
    assert pair.right.text == "" and pair.right.problem == "bad zip"
    assert pair.diff == ("text of /x/left", "")
    assert threading.main_thread().name not in seen
    host.wait(5000)


def test_load_text_turns_exceptions_into_messages():
    def boom(path: str, **kwargs):
        raise OSError("disk on fire")

    got = load_text("/x", boom)
    assert got.text == "" and "disk on fire" in (got.problem or "")


def test_every_answer_reaches_a_lambda_when_workers_end_together(qtbot) -> None:
    """A worker is let go once its thread has ended, and a handler given as a lambda goes
    with it: when another thread's end let go of every ended worker at once, the answers
    still queued for such handlers were lost (an excerpt pair never shown, found as a flaky
    test; an opened results file could leave the window busy for good)."""
    import time

    from app.workers import CallWorker, WorkerHost

    host = WorkerHost()
    got: list[int] = []
    for round_ in range(5):
        for i in range(12):
            worker = CallWorker(time.sleep, 0.002 * (i % 3))
            worker.finished.connect(lambda _v, i=i, r=round_: got.append(r * 100 + i))
            host.start(worker)
        qtbot.waitUntil(lambda: not host.busy(), timeout=10_000)
        qtbot.wait(50)
    assert sorted(got) == sorted(r * 100 + i for r in range(5) for i in range(12))
    host.wait()
