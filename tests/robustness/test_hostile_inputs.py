"""Whole scans of hostile and broken files: each ends as a document or a listed problem."""

from __future__ import annotations

import builtins
import os
import stat
from pathlib import Path

import pytest
from _hostile import (
    EXPECTED,
    SAMPLE,
    hostile_tree,
    make_docx,
    make_sparse,
    mixed_line_endings,
)
from _robust import IS_ROOT, assert_whole, by_name, scan

import neardup_core.scan.reading as reading_mod
from neardup_core import ProblemKind, ScanOptions, ScanSession, Stage
from neardup_core.report import write_csv, write_html, write_json, write_problems_csv
from neardup_core.store.results_file import load_result, save_result


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hostile")


@pytest.fixture(scope="module")
def tree(hostile: Path) -> Path:
    hostile_tree(hostile / "tree")
    return hostile / "tree"


def test_every_hostile_file_ends_as_a_document_or_the_right_problem(tree: Path) -> None:
    result = scan(tree)
    assert_whole(result)
    want = {name: ("document" if kind is None else str(kind)) for name, kind in EXPECTED.items()}
    assert by_name(result) == want
    assert all(p.message.strip() for p in result.problems)
    assert not result.partial


def test_messages_say_why(tree: Path) -> None:
    msg = {os.path.basename(p.path): p.message for p in scan(tree).problems}
    assert "64 MB" in msg["sparse 1 GB.txt"] and "1 GB" in msg["sparse 1 GB.txt"]
    assert "zip bomb" in msg["zip bomb.docx"]
    assert "DTD" in msg["billion laughs.docx"] and "DTD" in msg["xxe.docx"]
    assert "password" in msg["encrypted.docx"] and "password" in msg["password flag.docx"]
    assert "truncated" in msg["truncated.docx"]
    assert "Excel" in msg["spreadsheet named.docx"]
    assert "binary" in msg["picture.txt"]
    assert ".doc" in msg["old word.docx"]


def test_the_same_text_in_every_readable_form_is_one_exact_group(tree: Path) -> None:
    result = scan(tree)
    [group] = result.groups
    names = {os.path.basename(result.documents[m.doc].path) for m in group.members}
    assert names == {"good.docx", "good.txt", "strict.docx", "mixed endings.txt"}
    assert group.exact


def test_reports_and_saved_results_of_a_hostile_scan(tree: Path, tmp_path: Path) -> None:
    result = scan(tree)
    write_json(result, tmp_path / "r.json")
    write_csv(result, tmp_path / "r.csv")
    write_problems_csv(result, tmp_path / "p.csv")
    write_html(result, tmp_path / "r.html")
    save_result(result, str(tmp_path / "r.neardup"))
    back = load_result(str(tmp_path / "r.neardup"))
    assert back.problems == result.problems and back.documents == result.documents
    assert len(back.groups) == len(result.groups)


def test_the_hostile_tree_through_worker_processes(tree: Path) -> None:
    """Workers only start for big batches: lower the bar so this small tree uses them."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
        mp.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
        mp.setattr(reading_mod, "BATCH_FILES", 3)
        result = ScanSession(ScanOptions(use_cache=False, jobs=2),
                             mp_context="fork").run([str(tree)])
    assert by_name(result) == by_name(scan(tree))
    assert_whole(result)


# -- files that change under the scan -----------------------------------------------------------
def _files(root: Path, n: int = 6) -> list[Path]:
    root.mkdir()
    out = []
    for i in range(n):
        p = root / f"note{i}.txt"
        p.write_text(f"{SAMPLE}\nThis is note number {i} of the series.", encoding="utf-8")
        out.append(p)
    return out


def _on_first_read(action):
    fired: list[bool] = []

    def progress(ev) -> None:
        if ev.stage == Stage.READ and not fired:
            fired.append(True)
            action()

    return progress


def test_files_deleted_changed_or_replaced_after_the_walk(tmp_path: Path) -> None:
    files = _files(tmp_path / "docs")

    def meddle() -> None:
        files[0].unlink()                                       # deleted
        files[1].write_text("completely different words now, and more of them " * 20)
        files[2].unlink()
        files[2].mkdir()                                        # replaced by a folder
        files[3].unlink()
        os.symlink("/nonexistent/target.txt", files[3])         # replaced by a dangling link
        files[4].write_bytes(bytes(range(256)) * 8)             # now binary

    result = scan(tmp_path / "docs", _on_first_read(meddle))
    assert_whole(result)
    kinds = by_name(result)
    assert kinds == {"note0.txt": "vanished", "note1.txt": "document", "note2.txt": "unreadable",
                     "note3.txt": "vanished", "note4.txt": "binary", "note5.txt": "document"}
    assert not result.groups  # note1 changed its text: it is no longer a copy of note5


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_file_replaced_by_a_fifo_after_the_walk_does_not_hang_the_scan(tmp_path: Path) -> None:
    """Regression: open() of a FIFO waits for a writer forever; the reader must refuse it."""
    files = _files(tmp_path / "docs", 3)

    def meddle() -> None:
        files[1].unlink()
        os.mkfifo(files[1])

    result = scan(tmp_path / "docs", _on_first_read(meddle))
    [problem] = result.problems
    assert problem.kind == ProblemKind.UNREADABLE and "not a regular file" in problem.message
    assert len(result.documents) == 2


def test_a_file_that_grows_to_1_gb_after_the_walk_is_read_only_up_to_the_limit(
        tmp_path: Path) -> None:
    import tracemalloc

    files = _files(tmp_path / "docs", 3)
    limit = 8 * 1024 * 1024
    tracemalloc.start()
    try:
        result = scan(tmp_path / "docs", _on_first_read(lambda: make_sparse(files[2])),
                      max_size=limit)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    [problem] = result.problems
    assert problem.kind == ProblemKind.TOO_LARGE
    assert "1 GB" in problem.message and "8 MB" in problem.message
    assert peak < 4 * limit, f"{peak / 2**20:.0f} MiB allocated while reading"


# -- unreadable files ------------------------------------------------------------------------
def test_a_file_refused_by_the_system_is_an_unreadable_problem(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    files = _files(tmp_path / "docs", 3)
    secret = str(files[1])
    real_open = builtins.open
    if IS_ROOT:  # chmod does not stop root: refuse at open() the way the kernel would
        def refusing(file, *args, **kwargs):  # type: ignore[no-untyped-def]
            if os.fspath(file) == secret:
                raise PermissionError(13, "Permission denied", secret)
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", refusing)
    else:
        os.chmod(secret, 0)
    try:
        result = scan(tmp_path / "docs")
    finally:
        os.chmod(secret, stat.S_IRUSR | stat.S_IWUSR)
    assert by_name(result)["note1.txt"] == "unreadable"
    assert "permission denied" in next(p.message for p in result.problems)
    assert len(result.documents) == 2


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux /proc")
def test_a_file_that_fails_with_an_io_error_is_an_unreadable_problem(tmp_path: Path) -> None:
    """/proc/self/mem is a regular file whose first page cannot be read: a real EIO."""
    _files(tmp_path / "docs", 2)
    os.symlink("/proc/self/mem", tmp_path / "docs" / "memory.txt")
    result = scan(tmp_path / "docs", follow_symlinks=True, min_size=0)
    assert_whole(result)
    [problem] = result.problems
    assert problem.kind == ProblemKind.UNREADABLE
    assert "cannot be read" in problem.message
    assert len(result.documents) == 2


@pytest.mark.skipif(IS_ROOT, reason="root reads and lists everything whatever the mode")
def test_unreadable_files_and_folders_for_real(tmp_path: Path) -> None:
    files = _files(tmp_path / "docs", 3)
    locked = tmp_path / "docs" / "locked"
    locked.mkdir()
    make_docx(locked / "inside.docx")
    os.chmod(files[0], 0)
    os.chmod(locked, 0)
    try:
        result = scan(tmp_path / "docs")
    finally:
        os.chmod(files[0], 0o600)
        os.chmod(locked, 0o700)
    kinds = by_name(result)
    assert kinds["note0.txt"] == "unreadable" and kinds["locked"] == "unreadable"


# -- text that is odd but fine ----------------------------------------------------------------
def test_mixed_line_endings_read_as_the_same_text(tmp_path: Path) -> None:
    root = tmp_path / "endings"
    root.mkdir()
    (root / "unix.txt").write_text(SAMPLE, encoding="utf-8")
    (root / "mixed.txt").write_bytes(mixed_line_endings())
    (root / "old mac.txt").write_bytes(SAMPLE.replace("\n", "\r").encode("utf-8"))
    (root / "windows utf-16.txt").write_bytes(SAMPLE.replace("\n", "\r\n").encode("utf-16"))
    result = scan(root)
    [group] = result.groups
    assert len(group) == 4 and group.exact
