"""Hostile PDFs that PDFium cannot be stopped inside (issue 20): a decompression bomb used as a
page's content, a page PDFium takes forever over. Each ends as a problem that names the limit
it passed, within the per-file time and memory limits of the worker's watchdog
(:mod:`neardup_core.extract.limits`), and the scan completes with every other file.

The limits are lowered through the module's constants (read when the scan starts its workers);
a page is made slow by patching PDFium's text loader before the workers fork. Deadlines only,
no timed assertions.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from _hostile_formats import TEXT, MiB, stream_bomb_pdf
from _pdfium_patch import FORKING, SLOW_MARK, patch_page
from _robust import assert_whole
from formatgen import pdf_bytes

from neardup_core import ProblemKind, ScanOptions, ScanSession
from neardup_core.extract import limits

pytestmark = FORKING


def _folder(root: Path, hostile: dict[str, bytes]) -> Path:
    """Good PDFs and texts (one text in both), with the ``hostile`` files among them."""
    root.mkdir()
    (root / "good.pdf").write_bytes(pdf_bytes([[TEXT]]))
    (root / "good.txt").write_text(TEXT, encoding="utf-8")
    for i in range(4):  # other PDFs in the same batch as the hostile one
        words = f"Report {i}: quarterly figures for region {i}. 第{i}季度报告。"
        (root / f"report {i}.pdf").write_bytes(pdf_bytes([[words], [words + " Page two."]]))
    for name, data in hostile.items():
        (root / name).write_bytes(data)
    return root


def _outcome(result) -> dict[str, str]:  # type: ignore[no-untyped-def]
    out = {os.path.basename(d.path): "document" for d in result.documents}
    out.update({os.path.basename(p.path): str(p.kind) for p in result.problems})
    return out


def _check_others(result, hostile: str) -> None:  # type: ignore[no-untyped-def]
    assert_whole(result)
    got = _outcome(result)
    assert got.pop(hostile) == str(ProblemKind.TOO_LARGE)
    assert set(got.values()) == {"document"}, got
    assert len(got) == 6
    groups = [{os.path.basename(result.documents[m.doc].path) for m in g.members}
              for g in result.groups]
    assert {"good.pdf", "good.txt"} in groups
    assert not any("stopped unexpectedly" in n for n in result.notes), result.notes
    assert not result.partial


@pytest.mark.skipif(limits.resident_bytes() is None, reason="no way to read resident memory")
@pytest.mark.parametrize("method", ["forkserver", "fork"])
def test_a_decompression_bomb_ends_at_the_memory_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    """A 256 MB content stream (260 KB in the file) that PDFium inflates while loading the
    page: stopped at 64 MB, with the reason, and the scan goes on. Under the fork server too:
    the limits travel to the workers with their start, not through inherited memory."""
    root = _folder(tmp_path / "docs", {"stream bomb.pdf": stream_bomb_pdf(256 * MiB)})
    monkeypatch.setattr(limits, "MEMORY", 64 * MiB)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context=method).run(
        [str(root)])
    _check_others(result, "stream bomb.pdf")
    [problem] = result.problems
    assert problem.message == "needed more than 64 MB of memory to read: not compared"


def test_a_page_pdfium_never_leaves_ends_at_the_time_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One page whose text PDFium takes an hour over (a patched loader, in forked workers):
    the time budget between pages never gets a turn; the watchdog stops it at 2 s."""
    root = _folder(tmp_path / "docs", {"slow.pdf": pdf_bytes([[SLOW_MARK]])})
    patch_page(monkeypatch, SLOW_MARK, lambda: time.sleep(3600))
    monkeypatch.setattr(limits, "SECONDS", 2.0)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context="fork").run(
        [str(root)])
    _check_others(result, "slow.pdf")
    [problem] = result.problems
    assert problem.message == "took longer than 2 s to read: not compared"


def test_a_crash_without_a_record_still_costs_only_its_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that dies with no watchdog record (a crash inside PDFium) is still found one
    file at a time and said as before: the records explain only the deaths they caused."""
    root = _folder(tmp_path / "docs", {"crash.pdf": pdf_bytes([["crash here please"]])})
    patch_page(monkeypatch, "crash here please", lambda: os._exit(1))
    result = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context="fork").run(
        [str(root)])
    assert_whole(result)
    [problem] = result.problems
    assert os.path.basename(problem.path) == "crash.pdf" and problem.kind == ProblemKind.LOST
    assert len(result.documents) == 6
