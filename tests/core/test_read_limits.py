"""The per-file watchdog of a worker (issue 20): past the time or memory limit it records why
and ends its process; within them, or in a process never armed, it does nothing.

Each case runs in a child process (the watchdog ends the process it watches). Limits are set
low; waits are deadlines, never timed assertions.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest
from formatgen import pdf_bytes

from neardup_core.extract import Extracted, extract
from neardup_core.extract import limits as limits_mod
from neardup_core.extract.limits import (
    EXIT_STATUS,
    FileLimits,
    arm,
    armed,
    guarded,
    limits_now,
    make_records,
    remove_records,
    resident_bytes,
    scratch_folder,
    take_records,
)

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="children are forked"),
    pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning"),
]
MiB = 1024 * 1024


def _sleep_guarded(limits: FileLimits, path: str) -> None:
    arm(limits)
    with guarded(path):
        time.sleep(600)


def _sleep_in_scratch(limits: FileLimits, path: str, tell: str) -> None:
    """As a reader that writes files does (the Word 97-2003 converter): a scratch folder with
    a file in it, then a file past the limit."""
    arm(limits)
    with scratch_folder() as folder:
        Path(folder, "document.docx").write_bytes(b"converted")
        Path(tell).write_text(folder, encoding="utf-8")
        with guarded(path):
            time.sleep(600)


def _many_then_slow(limits: FileLimits) -> None:
    """Ten quick files (together past the limit, each well within it), then a slow one."""
    arm(limits)
    for i in range(10):
        with guarded(f"/docs/quick {i}.pdf"):
            time.sleep(limits.seconds / 5)
    with guarded("/docs/slow.pdf"):
        time.sleep(600)


def _grow_guarded(limits: FileLimits, path: str) -> None:
    arm(limits)
    held = []
    with guarded(path):
        for _ in range(600):  # up to 600 MiB, touched, in a minute
            held.append(bytearray(b"\1" * MiB))
            time.sleep(0.1)


def _read_pdf_guarded(limits: FileLimits, path: str) -> None:
    arm(limits)
    got = extract(path, max_bytes=64 * MiB)
    os._exit(0 if isinstance(got, Extracted) and "watched" in got.text else 3)


def _run(target, *args) -> int:  # type: ignore[no-untyped-def]
    child = multiprocessing.get_context("fork").Process(target=target, args=args)
    child.start()
    child.join(120)  # a deadline: the limits below end it within seconds
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail("the watchdog did not end its process")
    return child.exitcode or 0


def test_past_the_time_limit_the_process_ends_and_says_why(tmp_path: Path) -> None:
    limits = FileLimits(str(tmp_path), seconds=0.5, memory=1 << 40, interval=0.05)
    assert _run(_sleep_guarded, limits, "/docs/slow.pdf") == EXIT_STATUS
    assert take_records(str(tmp_path)) == {
        "/docs/slow.pdf": "took longer than 0.5 s to read: not compared"}
    assert os.listdir(tmp_path) == []  # taken once


def test_a_reader_s_scratch_folder_goes_with_the_process_the_watchdog_ends(
        tmp_path: Path) -> None:
    records, tell = tmp_path / "records", tmp_path / "folder.txt"
    records.mkdir()
    limits = FileLimits(str(records), seconds=0.5, memory=1 << 40, interval=0.05)
    assert _run(_sleep_in_scratch, limits, "/docs/slow.doc", str(tell)) == EXIT_STATUS
    folder = tell.read_text(encoding="utf-8")
    assert os.path.basename(folder).startswith("neardup-reading-")
    assert not os.path.exists(folder)
    assert list(take_records(str(records))) == ["/docs/slow.doc"]
    with scratch_folder() as mine:  # and, read to the end, the reader's own is removed
        Path(mine, "document.doc").write_bytes(b"x")
    assert not os.path.exists(mine)


def test_a_scratch_folder_s_removal_never_follows_a_link_or_enters_a_folder(
        tmp_path: Path) -> None:
    outside = tmp_path / "user's report.docx"
    outside.write_bytes(b"keep me")
    with scratch_folder() as folder:
        Path(folder, "document.docx").write_bytes(b"converted")
        os.symlink(outside, os.path.join(folder, "link.docx"))
        os.mkdir(os.path.join(folder, "inner"))
        Path(folder, "inner", "kept.txt").write_bytes(b"not the reader's")
    assert outside.read_bytes() == b"keep me"
    assert sorted(os.listdir(folder)) == ["inner"]  # the link and the file gone, not the folder
    assert Path(folder, "inner", "kept.txt").read_bytes() == b"not the reader's"
    Path(folder, "inner", "kept.txt").unlink()  # (what the removal left, for the test to remove)
    os.rmdir(os.path.join(folder, "inner"))
    os.rmdir(folder)


def test_the_time_limit_is_per_file_and_one_watchdog_serves_them_all(tmp_path: Path) -> None:
    limits = FileLimits(str(tmp_path), seconds=0.5, memory=1 << 40, interval=0.02)
    assert _run(_many_then_slow, limits) == EXIT_STATUS
    assert list(take_records(str(tmp_path))) == ["/docs/slow.pdf"]


@pytest.mark.skipif(resident_bytes() is None, reason="no way to read resident memory here")
def test_past_the_memory_limit_the_process_ends_and_says_why(tmp_path: Path) -> None:
    limits = FileLimits(str(tmp_path), seconds=600, memory=32 * MiB, interval=0.05)
    assert _run(_grow_guarded, limits, "/docs/bomb.pdf") == EXIT_STATUS
    [(path, message)] = take_records(str(tmp_path)).items()
    assert path == "/docs/bomb.pdf"
    assert message == "needed more than 32 MB of memory to read: not compared"


def test_a_normal_pdf_is_read_under_the_watchdog(tmp_path: Path) -> None:
    pdf = tmp_path / "fine.pdf"
    pdf.write_bytes(pdf_bytes([["A watched page.", "另一行中文。"], ["Page two."]]))
    records = tmp_path / "records"
    records.mkdir()
    limits = FileLimits(str(records), seconds=60, memory=256 * MiB, interval=0.01)
    assert _run(_read_pdf_guarded, limits, str(pdf)) == 0
    assert take_records(str(records)) == {}


def test_a_process_never_armed_never_ends_itself() -> None:
    assert armed() is None  # the test process, like the scan's own, is never armed
    with guarded("/docs/any.pdf"):
        time.sleep(0.01)


def test_the_limits_are_read_when_a_scan_starts_its_workers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits_mod, "SECONDS", 2.0)
    monkeypatch.setattr(limits_mod, "MEMORY", 64 * MiB)
    got = limits_now("/tmp/records")
    assert (got.seconds, got.memory, got.records) == (2.0, 64 * MiB, "/tmp/records")
    assert limits_mod.FileLimits("x").seconds == 60.0  # the documented defaults
    assert limits_mod.FileLimits("x").memory == 1 << 30


def test_a_half_written_or_foreign_record_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "1.json.part").write_text("{", encoding="utf-8")
    (tmp_path / "2.json").write_text("not json", encoding="utf-8")
    (tmp_path / "3.json").write_text(json.dumps({"path": "/a.pdf", "message": "m"}),
                                     encoding="utf-8")
    assert take_records(str(tmp_path)) == {"/a.pdf": "m"}
    assert take_records(str(tmp_path / "missing")) == {}


def test_only_our_records_and_our_empty_folder_are_ever_removed(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("{}", encoding="utf-8")  # not a <pid>.json
    assert take_records(str(tmp_path)) == {}
    assert (tmp_path / "notes.json").exists()
    remove_records(str(tmp_path))  # not a folder make_records made: left as it is
    assert (tmp_path / "notes.json").exists()

    ours = make_records()
    Path(ours, "12.json").write_text(json.dumps({"path": "/b.pdf", "message": "m"}),
                                     encoding="utf-8")
    remove_records(ours)
    assert not os.path.exists(ours)

    kept = make_records()
    Path(kept, "someone else's.txt").write_text("x", encoding="utf-8")
    remove_records(kept)  # not empty once our records are gone: stays
    assert os.listdir(kept) == ["someone else's.txt"]
    Path(kept, "someone else's.txt").unlink()
    os.rmdir(kept)


def test_folders_left_by_a_killed_program_are_removed_by_the_next(tmp_path: Path) -> None:
    child = multiprocessing.get_context("fork").Process(target=os._exit, args=(0,))
    child.start()
    child.join()
    gone = Path(tempfile.mkdtemp(prefix=f"neardup-stopped-{child.pid}-"))
    (gone / f"{child.pid}.json").write_text("{}", encoding="utf-8")
    alive = Path(tempfile.mkdtemp(prefix=f"neardup-stopped-{os.getppid()}-"))
    scratch = Path(tempfile.mkdtemp(prefix=f"neardup-reading-{child.pid}-"))  # a killed reader's
    (scratch / "document.docx").write_bytes(b"converted")
    ours = make_records()
    try:
        assert not gone.exists() and alive.exists() and not scratch.exists()
        assert Path(ours).name.startswith(f"neardup-stopped-{os.getpid()}-")
    finally:
        remove_records(ours)
        alive.rmdir()
