"""Batches handed to the workers while the walk goes on (Reading._send_early): the batches the
reading stage would make of the files not sent yet, full ones only, as many as the free slots
take, and never a copy of every unsent file per call (which made a 1,000,000-file walk
quadratic, issue 22); and the collector held off during the walk (neardup_core.gcpause)."""

from __future__ import annotations

import gc
import threading
from concurrent.futures import Future
from pathlib import Path

import pytest

import neardup_core.scan.reading as reading_mod
from neardup_core import ScanOptions, ScanSession
from neardup_core.extract import FileEntry
from neardup_core.gcpause import gc_paused
from neardup_core.progress import CancelToken, null_progress
from neardup_core.scan.reading import batches
from neardup_core.scan.session import _Run


class _Pool:
    def __init__(self) -> None:
        self.sent: list[list[FileEntry]] = []
        self.futures: list[Future] = []

    def submit(self, fn, batch, *args):  # type: ignore[no-untyped-def]
        fut: Future = Future()
        self.sent.append(batch)
        self.futures.append(fut)
        return fut


class _Workers:
    def __init__(self) -> None:
        self.pool = _Pool()
        self.warming = False


class _Answer:
    """What a worker sends back, as far as the early sending looks at it: one per file."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n


class _Todo(list):
    """The run's files to read, recording how many each slice of them copied."""

    copied: list[int]

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        got = super().__getitem__(i)
        if isinstance(i, slice):
            self.copied.append(len(got))
        return got


def _run(tmp_path: Path, todo: list[FileEntry]) -> tuple[_Run, _Pool]:
    session = ScanSession(ScanOptions(use_cache=False, jobs=2))
    run = _Run(session, (str(tmp_path),), null_progress, CancelToken())
    workers = _Workers()
    run.workers = workers  # type: ignore[assignment]
    run._todo = _Todo(todo)
    run._todo.copied = []
    return run, workers.pool


def _entries(sizes: list[int]) -> list[FileEntry]:
    return [FileEntry(f"/d/f{i:05d}.txt", s, 0, 0, i + 1) for i, s in enumerate(sizes)]


def _finish(pool: _Pool, i: int) -> None:
    pool.futures[i].set_result(_Answer(len(pool.sent[i])))


def _tasks(whole: list[list[FileEntry]], k: int) -> list[list[FileEntry]]:
    """The batches ``whole`` joined ``k`` at a time (a task of the workers); the last ones,
    too few for a task, are not sent during the walk."""
    return [[e for b in whole[i:i + k] for e in b] for i in range(0, len(whole) - k + 1, k)]


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("sizes", [
    [100] * 1000,                                     # cut by the file count
    [(i * 7919) % 900_000 + 1 for i in range(1000)],  # cut by bytes too, irregularly
])
def test_the_walk_sends_the_full_batches_the_reading_would_make(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sizes: list[int], k: int) -> None:
    monkeypatch.setattr(reading_mod, "BATCH_FILES", 16)
    monkeypatch.setattr(reading_mod, "BATCH_BYTES", 2_000_000)
    monkeypatch.setattr(reading_mod, "TASK_BATCHES", k)  # batches a task holds
    todo = _entries(sizes)
    whole = list(batches(todo))
    tasks = _tasks(whole, k)
    run, pool = _run(tmp_path, todo[:300])  # the walk has found 300 files so far
    run._send_early()
    assert pool.sent == tasks[:4]  # two workers: four tasks in flight at most
    run._send_early()
    assert len(pool.sent) == 4  # no free slot
    _finish(pool, 1)
    _finish(pool, 2)
    run._send_early()
    assert pool.sent == tasks[:6]
    assert run._early_done == len(tasks[1]) + len(tasks[2])
    # every slot free: the tasks up to the last full one of the 300 files, no further
    for i in range(len(pool.sent)):
        if not pool.futures[i].done():
            _finish(pool, i)
    while True:
        before = len(pool.sent)
        run._send_early()
        for i in range(before, len(pool.sent)):
            _finish(pool, i)
        if len(pool.sent) == before:
            break
    sent = sum(len(b) for b in pool.sent)
    assert pool.sent == tasks[:len(pool.sent)]
    assert run._early_sent == sent <= 300
    rest = list(batches(todo[sent:300]))
    # what is left is too little for one more task of full batches (and an unfinished one)
    full = [b for b in rest if len(b) >= 16 or sum(e.size for e in b) >= 2_000_000]
    assert len(full) < k and len(rest) - len(full) <= 1 and rest[:len(full)] == full
    # the walk goes on: the rest of the files, and the tasks go on where they stopped
    copied = run._todo.copied
    run._todo = _Todo(todo)
    run._todo.copied = copied
    run._send_early()
    assert pool.sent == tasks[:len(pool.sent)]
    assert len(pool.sent) > before
    # what each call copied is what the free slots could take, not every file not sent yet
    assert copied and max(copied) <= 4 * 16 * k


def test_the_collector_is_held_off_until_the_last_pause_ends() -> None:
    assert gc.isenabled()
    entered = threading.Event()
    leave = threading.Event()

    def other() -> None:
        with gc_paused():
            entered.set()
            leave.wait(10)

    t = threading.Thread(target=other)
    with gc_paused():
        assert not gc.isenabled()
        t.start()
        assert entered.wait(10)
    assert not gc.isenabled()  # the other thread's pause still holds it
    leave.set()
    t.join()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ValueError), gc_paused():
        raise ValueError
    assert gc.isenabled()


def _texts(root: Path, files: int = 12) -> Path:
    root.mkdir()
    for i in range(files):
        (root / f"doc{i:02d}.txt").write_text(" ".join(f"word{i}x{j}" for j in range(60)),
                                              encoding="utf-8")
    return root


def test_the_collector_is_off_while_the_scan_reads_and_on_after(
        tmp_path: Path) -> None:
    root = _texts(tmp_path / "docs")
    seen: dict[str, set[bool]] = {}

    def progress(ev) -> None:  # type: ignore[no-untyped-def]
        seen.setdefault(ev.stage.name, set()).add(gc.isenabled())

    result = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)], progress)
    assert len(result.documents) == 12
    assert seen["READ"] == {False}
    assert gc.isenabled()


def test_the_collector_is_back_on_after_a_cancel_or_a_failure(tmp_path: Path) -> None:
    root = _texts(tmp_path / "docs")
    cancel = CancelToken()

    def cancelling(ev) -> None:  # type: ignore[no-untyped-def]
        if ev.stage.name == "READ":
            cancel.cancel()

    result = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)], cancelling,
                                                                      cancel)
    assert result.partial and gc.isenabled()

    def failing(ev) -> None:  # type: ignore[no-untyped-def]
        if ev.stage.name == "READ":
            raise RuntimeError("the progress sink broke")

    with pytest.raises(RuntimeError):
        ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)], failing)
    assert gc.isenabled()
