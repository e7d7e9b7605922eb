"""What a scan's collector pauses made is frozen until the scan ends (neardup_core.gcpause):
not looked at by the collector while the scan runs, unfrozen after it, its cyclic garbage then
collectable; and no freezing at all outside a scan's ``gc_kept``."""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path

import pytest

from neardup_core import ScanOptions, ScanSession
from neardup_core.gcpause import gc_kept, gc_paused
from neardup_core.progress import CancelToken


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def _cycle() -> weakref.ref:
    return weakref.ref(_Node())


def test_a_pause_outside_a_kept_block_freezes_nothing() -> None:
    with gc_paused():
        gone = _cycle()
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gone() is None


def test_what_a_pause_made_stays_frozen_until_the_kept_block_ends() -> None:
    with gc_kept():
        with gc_paused():
            gone = _cycle()
            kept = [_Node() for _ in range(10)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= len(kept)
        gc.collect()
        assert gone() is not None  # frozen: the collector does not look at it
        after = _cycle()
        gc.collect()
        assert after() is None  # what is made after the pause is collected as usual
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gone() is None


def test_the_last_kept_block_unfreezes() -> None:
    entered = threading.Event()
    leave = threading.Event()

    def other() -> None:
        with gc_kept():
            entered.set()
            leave.wait(10)

    t = threading.Thread(target=other)
    with gc_kept():
        t.start()
        assert entered.wait(10)
        with gc_paused():
            gone = _cycle()
    assert gc.get_freeze_count() > 0  # the other thread's block still holds it
    leave.set()
    t.join()
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gone() is None


def test_a_failure_inside_a_kept_block_unfreezes() -> None:
    with pytest.raises(ValueError), gc_kept(), gc_paused():
        raise ValueError
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def _texts(root: Path, files: int = 12) -> Path:
    root.mkdir()
    for i in range(files):
        (root / f"doc{i:02d}.txt").write_text(" ".join(f"word{i}x{j}" for j in range(60)),
                                              encoding="utf-8")
    return root


def test_a_scan_freezes_after_reading_and_unfreezes_when_done(tmp_path: Path) -> None:
    root = _texts(tmp_path / "docs")
    frozen: dict[str, int] = {}

    def progress(ev) -> None:  # type: ignore[no-untyped-def]
        frozen[ev.stage.name] = max(frozen.get(ev.stage.name, 0), gc.get_freeze_count())

    result = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)], progress)
    assert len(result.documents) == 12
    assert frozen["GROUP"] > 0  # the documents and what else the reading made
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    cancel = CancelToken()

    def cancelling(ev) -> None:  # type: ignore[no-untyped-def]
        if ev.stage.name == "READ":
            cancel.cancel()

    ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)], cancelling, cancel)
    assert gc.get_freeze_count() == 0 and gc.isenabled()
