"""The time left is estimated from bytes: a scan whose last files are its largest is not "about
2 s" from the end (issue 21, item 14). Fake progress streams, and the events a real scan sends."""

from __future__ import annotations

from pathlib import Path

import pytest

import neardup_core.scan.reading as reading_mod
from neardup_core import ScanOptions, ScanSession
from neardup_core.progress import ProgressEvent, Stage, TimeLeft

MB = 1024 * 1024


def reading(done: int, total: int, t: float, bdone: int, btotal: int) -> ProgressEvent:
    return ProgressEvent(Stage.READ, done, total, "", t, bdone, btotal)


def test_events_without_bytes_are_built_as_before() -> None:
    ev = ProgressEvent(Stage.READ, 3, 10, "x", 1.0)
    assert (ev.bytes_done, ev.bytes_total, ev.bytes_left) == (0, 0, 0)
    assert ev.fraction == pytest.approx(0.3)
    assert ProgressEvent(Stage.READ, 3, 10, "", 1.0, 90, 100).fraction == pytest.approx(0.9)


def test_a_large_last_file_is_not_taken_for_a_seconds_work() -> None:
    """9,800 files of 100 KB in 98 s, then 200 files holding 2 GB: by files the scan is 98 %
    done with 2 s left; by bytes about two thirds of its time is still to come."""
    small, large = 9_800 * 100 * 1024, 2_000 * MB
    total = small + large
    eta = TimeLeft()
    eta.update(reading(0, 10_000, 0.0, 0, total))
    left = None
    for i in range(1, 99):
        left = eta.update(reading(i * 100, 10_000, float(i), i * 100 * 100 * 1024, total))
    assert left is not None
    assert left == pytest.approx(large / (small / 98.0), rel=0.01)  # about 209 s, not 2 s
    assert left > 60


def test_the_estimate_counts_down_between_events_and_stops_at_zero_with_work_left() -> None:
    eta = TimeLeft()
    eta.update(reading(0, 100, 0.0, 0, 100 * MB))
    assert eta.update(reading(50, 100, 10.0, 50 * MB, 100 * MB)) == pytest.approx(10.0)
    assert eta.at(14.0) == pytest.approx(6.0)
    assert eta.at(30.0) == 0.0            # the last file takes longer than the rate says...
    assert eta.work_left == 50 * MB and eta.unit == "bytes"  # ...and is still to be read
    assert eta.update(reading(100, 100, 31.0, 100 * MB, 100 * MB)) == 0.0
    assert eta.work_left == 0


def test_items_are_counted_when_bytes_are_not_and_a_new_stage_starts_afresh() -> None:
    eta = TimeLeft()
    assert eta.update(ProgressEvent(Stage.PAIRS, 0, 1000, "", 5.0)) is None
    assert eta.update(ProgressEvent(Stage.PAIRS, 0, 1000, "", 5.2)) is None   # nothing done
    assert eta.update(ProgressEvent(Stage.PAIRS, 100, 1000, "", 5.3)) is None  # warming up
    assert eta.update(ProgressEvent(Stage.PAIRS, 500, 1000, "", 10.0)) == pytest.approx(5.0)
    assert eta.unit == "items"
    assert eta.update(ProgressEvent(Stage.GROUP, 0, 1, "", 10.1)) is None
    assert eta.update(ProgressEvent(Stage.WALK, 10, None, "", 10.2)) is None


def test_a_pass_that_starts_again_from_zero_restarts_the_estimate() -> None:
    """The boilerplate pass re-reads files in the same stage: its rate is its own."""
    eta = TimeLeft()
    eta.update(reading(0, 10, 0.0, 0, 10 * MB))
    eta.update(reading(10, 10, 10.0, 10 * MB, 10 * MB))
    assert eta.update(reading(0, 4, 10.5, 0, 4 * MB)) is None
    assert eta.update(reading(2, 4, 11.5, 2 * MB, 4 * MB)) == pytest.approx(1.0)


def _tree(root: Path, sizes: list[int]) -> Path:
    root.mkdir()
    for i, n in enumerate(sizes):
        words = " ".join(f"w{i}x{j}" for j in range(n // 8))
        (root / f"f{i:03d}.txt").write_text(words[:n] + "\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_reading_stage_reports_bytes_done_of_the_walked_total(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(reading_mod, "BATCH_FILES", 3)
    root = _tree(tmp_path / "docs", [2_000] * 11 + [200_000])
    expected = sum(p.stat().st_size for p in root.iterdir())
    events: list[ProgressEvent] = []
    ScanSession(ScanOptions(use_cache=False, jobs=jobs, boilerplate=None)).run(
        [str(root)], events.append)
    read = [e for e in events if e.stage == Stage.READ]
    assert read and all(e.bytes_total == expected for e in read)
    done = [e.bytes_done for e in read]
    assert done == sorted(done) and done[0] == 0 and done[-1] == expected
    assert [e.done for e in read][-1] == 12


def test_a_cached_rescan_counts_the_cached_files_as_done(tmp_path: Path) -> None:
    root = _tree(tmp_path / "docs", [3_000] * 5)
    options = ScanOptions(use_cache=True, cache_path=str(tmp_path / "c.sqlite"), jobs=1,
                          boilerplate=None)
    ScanSession(options).run([str(root)])
    (root / "f005.txt").write_text("new file " * 100, encoding="utf-8")
    events: list[ProgressEvent] = []
    ScanSession(options).run([str(root)], events.append)
    read = [e for e in events if e.stage == Stage.READ]
    total = sum(p.stat().st_size for p in root.iterdir())
    assert read[0].bytes_done == total - (root / "f005.txt").stat().st_size
    assert read[-1].bytes_done == read[-1].bytes_total == total
