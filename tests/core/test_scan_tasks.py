"""Worker tasks of several batches (neardup_core.scan.reading.TASK_BATCHES): each batch is read
and fingerprinted as it would be alone and they come back as one packed answer, so the scan
finds the same, survives a crash or a cancel the same, and the tasks shrink back to one batch
towards the end of the reading."""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
from core._scan_folder import (
    MiB,
    _cancelled_and_full,
    _consistent_part,
    _crash_on_doc007,
    _entries,
    _folder,
    _lost_only_doc007,
    _same_outcome,
    _same_scan,
)

import neardup_core.scan.pool as pool_mod
import neardup_core.scan.reading as reading_mod
from neardup_core import ProblemKind, ScanOptions, ScanSession
from neardup_core.fingerprint.fingerprinter import FingerprintSettings
from neardup_core.scan.packed import fingerprint_packed, read_packed, split_at
from neardup_core.scan.reading import batches, task_batches
from neardup_core.scan.worker import prepare_batch

FILES = 2  # a batch
TASK = 3   # batches a task may hold


def _small_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(reading_mod, "BATCH_FILES", FILES)
    monkeypatch.setattr(reading_mod, "TASK_BATCHES", TASK)
    monkeypatch.setattr(reading_mod, "READ_AHEAD_BYTES", 0)  # every file to the workers


def _jumps(events: list[int]) -> list[int]:
    """How many files each reading event counted (one event per task that came back)."""
    return [b - a for a, b in zip([0, *events], events, strict=False)]


def test_tasks_hold_several_batches_while_many_are_left_then_one() -> None:
    limit = 4  # two workers
    assert [task_batches(left, limit) for left in (100, 16, 15, 12, 8, 7, 4, 3, 1, 0)] == \
        [4, 4, 3, 3, 2, 1, 1, 1, 1, 1]


def test_split_at_cuts_runs_and_refuses_counts_that_do_not_add_up() -> None:
    assert split_at([1, 2, 3, 4, 5], [2, 0, 3]) == [[1, 2], [], [3, 4, 5]]
    assert split_at([1, 2], None) == [[1, 2]]
    with pytest.raises(ValueError):
        split_at([1, 2, 3], [1, 1])


@pytest.mark.parametrize("how", ["read", "fingerprint"])
def test_a_task_of_several_batches_answers_as_they_would_alone(tmp_path: Path,
                                                               how: str) -> None:
    entries = _entries(_folder(tmp_path / "docs", 14))
    settings = FingerprintSettings()
    parts = list(batches(entries, 4))
    counts = [len(b) for b in parts]
    if how == "read":
        alone = [read_packed(b, settings, MiB) for b in parts]
        joined = read_packed(entries, settings, MiB, None, None, counts)
    else:
        alone = [fingerprint_packed(prepare_batch(b, MiB), settings, MiB) for b in parts]
        joined = fingerprint_packed(prepare_batch(entries, MiB), settings, MiB, None, counts)
    joined = pickle.loads(pickle.dumps(joined))
    want = [o for b, p in zip(parts, alone, strict=True) for o in p.outcomes(b)]
    got = joined.outcomes(entries)
    assert len(got) == len(want) == len(entries)
    assert any(o.problem is not None for o in got) and any(o.problem is None for o in got)
    for a, b in zip(want, got, strict=True):
        _same_outcome(a, b)


def test_workers_with_tasks_of_several_batches_find_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path / "docs", 40)
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    _small_tasks(monkeypatch)
    events: list[int] = []

    def progress(ev) -> None:  # type: ignore[no-untyped-def]
        if ev.stage.name == "READ" and ev.done:
            events.append(ev.done)

    sent: list[int] = []  # batches in each task, in the order the tasks were sent
    real_task_batches = reading_mod.task_batches

    def recorded(left: int, limit: int) -> int:
        k = real_task_batches(left, limit)
        sent.append(k)
        return k

    monkeypatch.setattr(reading_mod, "task_batches", recorded)
    pooled = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)], progress)
    assert pooled.stats["workers"]["pools"] == 1
    _same_scan(pooled, here)
    jumps = _jumps(events)
    # tasks of TASK batches while many are left, and single batches at the end (as sent: a
    # loaded machine may finish a larger task after the single ones sent after it)
    assert max(jumps) == TASK * FILES and sorted(jumps)[0] <= FILES
    assert sent[0] == TASK and sent[-1] == 1 and sent == sorted(sent, reverse=True)


def _fingerprint_spy(items, settings, max_bytes, drop_lines=None, counts=None):  # type: ignore[no-untyped-def]
    """fingerprint_packed, noting in a worker how many texts a task held (in the file that
    NEARDUP_TEST_SPY names)."""
    with open(os.environ["NEARDUP_TEST_SPY"], "a", encoding="utf-8") as f:
        f.write(f"{len(items)}\n")
    return fingerprint_packed(items, settings, max_bytes, drop_lines, counts)


@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_read_ahead_batches_go_to_the_workers_several_to_a_task(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path / "docs", 40)
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    _small_tasks(monkeypatch)
    monkeypatch.setattr(reading_mod, "READ_AHEAD_BYTES", 32 * MiB)
    looks: list[int] = []

    def warming(self) -> bool:  # type: ignore[no-untyped-def]
        looks.append(1)
        return len(looks) <= 10  # ten batches read ahead, then the workers are up

    monkeypatch.setattr(pool_mod.WorkerPool, "warming", property(warming))
    spy = tmp_path / "spy.txt"
    monkeypatch.setenv("NEARDUP_TEST_SPY", str(spy))
    monkeypatch.setattr(reading_mod, "fingerprint_packed", _fingerprint_spy)
    pooled = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context="fork").run(
        [str(root)])
    ahead = pooled.stats["read_ahead"]  # ten batches, less a .docx (never read ahead)
    assert 10 * FILES - 1 <= ahead <= 10 * FILES
    assert "fingerprinted_ahead" not in pooled.stats
    held = [int(x) for x in spy.read_text(encoding="utf-8").split()]
    assert sum(held) == ahead and max(held) == TASK * FILES  # several batches a task
    _same_scan(pooled, here)


@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_worker_that_dies_in_a_task_of_several_batches_costs_only_that_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path / "docs", 40)
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    _small_tasks(monkeypatch)
    _crash_on_doc007(monkeypatch)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context="fork").run(
        [str(root)])
    _lost_only_doc007(result, here)


def test_a_cancel_among_tasks_of_several_batches_keeps_a_consistent_part(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path / "docs", 80)
    _small_tasks(monkeypatch)
    result, full = _cancelled_and_full(root)
    got = _consistent_part(result, full)
    order = [d.path for d in full.documents]
    assert np.array_equal(result.simhash, np.array([full.simhash[order.index(p)] for p in got],
                                                   dtype=result.simhash.dtype))


class _BreaksOnce:
    """A worker pool that, at its ``nth`` task of the reading, refuses it as a pool does whose
    worker died since the scan last looked (submit raises BrokenProcessPool): a race that a
    loaded machine meets now and then when a worker dies. Its workers have started (their
    warm-up tasks are done), as they have once one of them reads a file."""

    def __init__(self, pool, nth: int, fn, warm) -> None:  # type: ignore[no-untyped-def]
        self.pool, self.nth, self.fn, self.warm, self.calls = pool, nth, fn, warm, 0

    def submit(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        if fn is self.fn:
            self.calls += 1
            if self.calls == self.nth:
                from concurrent.futures import wait
                from concurrent.futures.process import BrokenProcessPool

                wait(self.warm)
                raise BrokenProcessPool("a worker died")
        return self.pool.submit(fn, *args, **kwargs)


@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
@pytest.mark.parametrize("task", ["read", "fingerprint"])
def test_a_task_the_broken_pool_refuses_is_read_again_not_dropped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str) -> None:
    root = _folder(tmp_path / "docs", 40)
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    _small_tasks(monkeypatch)
    if task == "fingerprint":  # texts read ahead in this process, fingerprinted by the workers
        monkeypatch.setattr(reading_mod, "READ_AHEAD_BYTES", 32 * MiB)
        looks: list[int] = []

        def warming(self) -> bool:  # type: ignore[no-untyped-def]
            looks.append(1)
            return len(looks) <= 10

        monkeypatch.setattr(pool_mod.WorkerPool, "warming", property(warming))
    fn = reading_mod.fingerprint_packed if task == "fingerprint" else reading_mod.read_packed
    real_get = pool_mod.WorkerPool.get
    wrapped: list[_BreaksOnce] = []

    def get(self):  # type: ignore[no-untyped-def]
        pool = real_get(self)
        if pool is not None and not wrapped:
            wrapped.append(_BreaksOnce(pool, 2, fn, self._warm))
        return wrapped[0] if wrapped and pool is wrapped[0].pool else pool

    monkeypatch.setattr(pool_mod.WorkerPool, "get", get)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context="fork").run(
        [str(root)])
    assert wrapped and wrapped[0].calls >= 2  # the refusal happened
    assert result.stats["workers"]["pools"] == 2
    _same_scan(result, here)  # every file, none lost with the refused task


def test_files_the_reading_lost_track_of_are_listed_not_left_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The net under the bookkeeping: should a worker's answer go missing (a defect), its files
    are problems that say so, and everything else is as found."""
    from neardup_core.scan.packed import Collected

    root = _folder(tmp_path / "docs", 40)
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    _small_tasks(monkeypatch)
    real_add = Collected.add
    dropped: list[str] = []

    def add(self, batch, packed) -> None:  # type: ignore[no-untyped-def]
        if not dropped:
            dropped.extend(e.path for e in batch)
            return
        real_add(self, batch, packed)

    monkeypatch.setattr(Collected, "add", add)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    assert dropped
    lost = [p for p in result.problems if p.kind == ProblemKind.LOST]
    assert sorted(p.path for p in lost) == sorted(dropped)
    from neardup_core.messages import parse

    assert {parse(p.message).code for p in lost} == {"lost_track"}  # worded in Chinese too
    assert [parse(n).code for n in result.notes if "lost track" in n] == ["lost_track_note"]
    assert result.documents == tuple(d for d in here.documents if d.path not in dropped)
