"""any_worker_only, the walk's look for files only a worker may read (PDFs, Word 97-2003),
against the look a path at a time it replaced."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.extract import FileEntry
from neardup_core.models import WORKER_ONLY_SUFFIXES
from neardup_core.scan.cache_lookup import any_worker_only

# suffixes in any case, near misses, characters lower() maps to two (İ) or by context (Σ)
_PIECES = ["/", "a", "报告", ".pdf", ".PDF", ".Pdf", "pdf", ".pd", ".pdff", ".txt", ".", ".doc",
           ".DOT", ".wps", ".docx", ".do", "\u0130", "\u03a3", "\u212a", " ", "\0", "é"]


def _one_by_one(entries: list[FileEntry]) -> bool:
    return any(e.path.lower().endswith(tuple(sorted(WORKER_ONLY_SUFFIXES))) for e in entries)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=6).map("".join), max_size=6))
def test_any_worker_only_agrees_with_a_path_at_a_time(paths: list[str]) -> None:
    entries = [FileEntry(p, 1, 0) for p in paths]
    assert any_worker_only(entries) == _one_by_one(entries)


def test_any_worker_only_finds_the_one_pdf_among_many() -> None:
    entries = [FileEntry(f"/docs/报告_{i:05d}.txt", 1, 0) for i in range(1000)]
    assert not any_worker_only(entries)
    entries[517] = FileEntry("/docs/Scan.PDF", 1, 0)
    assert any_worker_only(entries)
    assert not any_worker_only([FileEntry("/docs/x.pdf\0.txt", 1, 0)])
    assert not any_worker_only([])
