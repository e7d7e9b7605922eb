"""Hostile PDFs, OpenDocument, RTF and Word 97-2003 files in a scan (issue 20): each ends as a
document or the right problem, in words; a PDF that crashes its reader costs only itself."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from _hostile_formats import EXPECTED_FORMATS, TEXT, hostile_formats_tree
from _robust import assert_whole, by_name
from formatgen import pdf_bytes

import neardup_core.scan.worker as worker_mod
from neardup_core import ProblemKind, ScanOptions, ScanSession
from neardup_core.extract import Extracted, extract
from neardup_core.extract.doc import DOC_DAMAGED, DOC_NOT_WORD, DOC_OLD_WORD

FORK_WARNING = "ignore:This process .* is multi-threaded:DeprecationWarning"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile formats") / "tree"
    hostile_formats_tree(root)
    return root


@pytest.mark.filterwarnings(FORK_WARNING)
def test_every_hostile_document_ends_as_a_document_or_the_right_problem(tree: Path) -> None:
    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(tree)])
    assert_whole(result)
    want = {name: "document" if kind is None else str(kind)
            for name, kind in EXPECTED_FORMATS.items()}
    assert by_name(result) == want
    for problem in result.problems:
        assert "Error" not in problem.message and "Traceback" not in problem.message
    msg = {os.path.basename(p.path): p.message for p in result.problems}
    assert "1,000,000 pages" in msg["million pages.pdf"]
    assert msg["scanned.pdf"].startswith("no text layer (a scanned image)")
    assert "password" in msg["locked.pdf"]
    assert "zip bomb" in msg["zip bomb.odt"] and "DTD" in msg["billion laughs.odt"]
    assert msg["old word.doc"] == DOC_DAMAGED and msg["old wps.wps"] == DOC_NOT_WORD
    assert msg["word 95.doc"] == DOC_OLD_WORD and "password" in msg["locked.doc"]
    docs = {os.path.basename(d.path): d for d in result.documents}
    assert docs["good.pdf"].format == "pdf" and docs["good.rtf"].format == "rtf"
    assert docs["good.doc"].format == "doc"
    assert "nest deeper" in msg["picture nested deep.rtf"]
    for name in ("picture binary past the end.rtf", "picture never closed.rtf"):
        assert docs[name].skipped == "1 picture not compared", name
    groups = [{os.path.basename(result.documents[m.doc].path) for m in g.members}
              for g in result.groups]
    assert {"good.pdf", "good.odt", "good.rtf", "good.doc"} in groups  # one text, four formats
    assert not result.partial


def test_pages_that_cannot_load_are_skipped_said_and_never_identical(tree: Path) -> None:
    got = extract(str(tree / "cyclic.pdf"), max_bytes=64 * 1024 * 1024)
    assert isinstance(got, Extracted) and got.text == "hello hostile world"
    assert got.skipped == "2 damaged pages not compared" and got.identity is not None


@pytest.mark.filterwarnings(FORK_WARNING)
@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
def test_a_pdf_that_kills_its_reader_costs_only_that_file_even_in_a_small_scan(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small scan is read in the scan's own process, but never a PDF: PDFium crashing there
    would end the scan and the app."""
    root = tmp_path / "few"
    root.mkdir()
    (root / "a.pdf").write_bytes(pdf_bytes([[TEXT]]))
    (root / "crash.pdf").write_bytes(pdf_bytes([["boom"]]))
    (root / "a.txt").write_text(TEXT, encoding="utf-8")
    parent = os.getpid()
    real_extract = worker_mod.extract

    def deadly(path: str, **kw):  # type: ignore[no-untyped-def]
        if os.path.basename(path) == "crash.pdf":
            if os.getpid() == parent:
                raise AssertionError("a PDF was read in the scan's own process")
            os._exit(1)  # as a crash in PDFium would end it
        return real_extract(path, **kw)

    monkeypatch.setattr(worker_mod, "extract", deadly)
    result = ScanSession(ScanOptions(use_cache=False, jobs=1),
                         mp_context="fork").run([str(root)])
    assert_whole(result)
    [lost] = result.problems
    assert os.path.basename(lost.path) == "crash.pdf" and lost.kind == ProblemKind.LOST
    [group] = result.groups
    assert {os.path.basename(result.documents[m.doc].path) for m in group.members} == {
        "a.pdf", "a.txt"}
