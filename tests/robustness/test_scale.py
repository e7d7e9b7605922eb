"""Many tiny files and one huge one: groups not quadratic blow-ups, memory bounded by limits."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from _hostile import make_sparse
from _robust import assert_whole, scan

from neardup_core import ProblemKind
from neardup_core.extract import TooLarge, extract, read_docx

GiB = 1 << 30
MiB = 1 << 20


def test_thousands_of_identical_tiny_files_and_empty_files(tmp_path: Path) -> None:
    """2,000 one-word copies, 2,000 empty files and 300 of punctuation only: one group held by
    a pair per copy; the rest are listed, never "matched" with each other."""
    root = tmp_path / "tiny"
    (root / "blank").mkdir(parents=True)
    for i in range(2000):
        (root / f"copy{i:04d}.txt").write_bytes(b"ok")
    for i in range(2000):
        (root / "blank" / f"empty{i:04d}.txt").write_bytes(b"")
    for i in range(300):
        (root / "blank" / f"dots{i:03d}.txt").write_bytes(b"..." if i % 2 else b" -- !! ")
    for i in range(10):
        (root / "blank" / f"copy{i}.txt").write_bytes(b"ok")

    result = scan(root)
    assert_whole(result)
    [group] = result.groups
    assert len(group) == 2010 and group.exact
    assert len(result.pairs) == 2009  # a star around the first copy, not 2 million pairs
    assert result.duplicate_count == 2009
    assert "2000 empty files were skipped." in result.notes
    assert len(result.problems) == 300
    assert {p.kind for p in result.problems} == {ProblemKind.EMPTY}

    # with empty files included they are problems too, one each, and still pair with nothing
    blank = scan(root / "blank", min_size=0)
    assert_whole(blank)
    assert len(blank.problems) == 2300
    assert {p.kind for p in blank.problems} == {ProblemKind.EMPTY}
    assert len(blank.pairs) == 9 and [len(g) for g in blank.groups] == [10]


def test_thousands_of_tiny_files_alike_in_part_are_not_matches(tmp_path: Path) -> None:
    """Template-made one-liners share most words but no shingle set is close: no groups."""
    root = tmp_path / "invoices"
    root.mkdir()
    for i in range(1000):
        (root / f"invoice{i:04d}.txt").write_text(f"Invoice {i} paid in full", encoding="utf-8")
    result = scan(root)
    assert_whole(result)
    assert len(result.documents) == 1000
    assert not result.groups
    assert len(result.pairs) <= len(result.documents)


def test_a_1_gb_text_file_is_refused_by_size_without_reading(tmp_path: Path) -> None:
    root = tmp_path / "huge"
    root.mkdir()
    make_sparse(root / "huge.txt", GiB)
    (root / "small.txt").write_text("a few words to read", encoding="utf-8")
    tracemalloc.start()
    try:
        result = scan(root)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    [problem] = result.problems
    assert problem.kind == ProblemKind.TOO_LARGE
    assert problem.message == "1 GB is over the 64 MB size limit"
    assert peak < 16 * MiB


def test_a_1_gb_text_file_under_a_raised_limit_is_read_only_up_to_it(tmp_path: Path) -> None:
    path = make_sparse(tmp_path / "huge.txt", GiB)
    tracemalloc.start()
    try:
        got = extract(str(path), max_bytes=4 * MiB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got.kind == ProblemKind.TOO_LARGE  # type: ignore[union-attr]
    assert "4 MB" in got.message  # type: ignore[union-attr]
    assert peak < 16 * MiB


def test_a_1_gb_docx_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    """Regression: read_docx read up to 257 MB before comparing with its limit."""
    path = make_sparse(tmp_path / "huge.docx", GiB)
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge, match="limit for Word documents"):
            read_docx(str(path))
        got = extract(str(path), max_bytes=2 * GiB)  # the user raised the size limit
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got.kind == ProblemKind.TOO_LARGE  # type: ignore[union-attr]
    assert peak < 16 * MiB, f"{peak / MiB:.0f} MiB read"
