"""A PDF read again after the scan (the window's views, the HTML page's diffs, ``neardup
compare``) is read within the scan's per-file limits, in a process of its own
(:mod:`neardup_core.scan.isolated`): a decompression bomb or a page PDFium never leaves ends as
a problem that says which limit, and the reading process keeps its memory. Before, a PDF of
1.5 MB took ``neardup compare`` to 2.6 GB.

The limits are lowered through the module's constants (read when a reading starts); slow and
crashing pages come from a patched PDFium in processes forked from the test. Deadlines only,
no timed assertions.
"""

from __future__ import annotations

import io
import os
import threading
import time
from pathlib import Path

import pytest
from _hostile_formats import TEXT, MiB, stream_bomb_pdf
from _pdfium_patch import FORKING, SLOW_MARK, patch_page
from formatgen import doc_bytes, pdf_bytes

from neardup_core import ProblemKind, ScanOptions, ScanSession
from neardup_core.extract import Extracted, extract, limits
from neardup_core.models import Problem
from neardup_core.report import html_diffs
from neardup_core.report.html_report import write_html
from neardup_core.scan import isolated, pool
from neardup_core.scan.isolated import read_isolated, stop_readers

pytestmark = FORKING
CRASH_MARK = "This page crashes PDFium"
MAX = 64 * MiB


@pytest.fixture(autouse=True)
def _own_reader():  # type: ignore[no-untyped-def]
    """Each test starts its own reading process (one forked from a patched PDFium, say)."""
    stop_readers()
    yield
    stop_readers()


def _fork_readers(monkeypatch: pytest.MonkeyPatch, page_mark: str, behave) -> None:  # type: ignore[no-untyped-def]
    """Readings forked from this process, whose PDFium ``behave``s on a page with
    ``page_mark`` (a patch the fork server's processes would not have)."""
    patch_page(monkeypatch, page_mark, behave)
    monkeypatch.setattr(pool, "start_method", lambda: "fork")


def test_a_good_pdf_reads_as_in_place(tmp_path: Path) -> None:
    path = tmp_path / "good.pdf"
    path.write_bytes(pdf_bytes([[TEXT], [TEXT + " Page two."]]))
    got = read_isolated(str(path), max_bytes=MAX)
    assert isinstance(got, Extracted)
    assert got == extract(str(path), max_bytes=MAX)


@pytest.mark.skipif(limits.resident_bytes() is None, reason="no way to read resident memory")
def test_a_bomb_ends_at_the_memory_limit_and_costs_this_process_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bomb.pdf"
    path.write_bytes(stream_bomb_pdf(512 * MiB))
    monkeypatch.setattr(limits, "MEMORY", 64 * MiB)
    before = limits.resident_bytes()
    got = read_isolated(str(path), max_bytes=MAX)
    after = limits.resident_bytes()
    assert got == Problem(str(path), ProblemKind.TOO_LARGE,
                          "needed more than 64 MB of memory to read: not compared")
    assert before is not None and after is not None and after - before < 128 * MiB


def test_a_page_pdfium_never_leaves_ends_at_the_time_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "slow.pdf"
    path.write_bytes(pdf_bytes([[SLOW_MARK]]))
    _fork_readers(monkeypatch, SLOW_MARK, lambda: time.sleep(3600))
    monkeypatch.setattr(limits, "SECONDS", 1.0)
    got = read_isolated(str(path), max_bytes=MAX)
    assert got == Problem(str(path), ProblemKind.TOO_LARGE,
                          "took longer than 1 s to read: not compared")


def test_a_reader_that_dies_without_a_record_is_a_lost_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "crash.pdf"
    path.write_bytes(pdf_bytes([[CRASH_MARK]]))
    _fork_readers(monkeypatch, CRASH_MARK, lambda: os._exit(1))
    got = read_isolated(str(path), max_bytes=MAX)
    assert isinstance(got, Problem) and got.kind == ProblemKind.LOST
    assert got.message == "its worker process stopped unexpectedly while reading it"


def test_stop_readers_ends_a_reading_under_way(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A window that closes does not wait for a PDF it was reading for a view."""
    path = tmp_path / "slow.pdf"
    path.write_bytes(pdf_bytes([[SLOW_MARK]]))
    _fork_readers(monkeypatch, SLOW_MARK, lambda: time.sleep(3600))
    got: list[object] = []
    reading = threading.Thread(target=lambda: got.append(read_isolated(str(path),
                                                                       max_bytes=MAX)))
    reading.start()
    deadline = time.monotonic() + 60
    while isolated._reader is None and reading.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # in PDFium's page by now
    stop_readers()
    reading.join(timeout=30)
    assert not reading.is_alive()
    assert isinstance(got[0], Problem) and got[0].kind == ProblemKind.LOST
    assert isolated._reader is None


def test_other_files_are_read_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "note.txt"
    path.write_text(TEXT, encoding="utf-8")
    monkeypatch.setattr(pool, "ProcessPoolExecutor",
                        lambda *a, **k: pytest.fail("a process for a text file"))
    got = read_isolated(str(path), max_bytes=MAX)
    assert isinstance(got, Extracted) and got.text == TEXT


def test_without_processes_a_pdf_is_read_in_place(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """As a scan reads where no worker can start."""
    path = tmp_path / "good.pdf"
    path.write_bytes(pdf_bytes([[TEXT]]))

    def refused(*a: object, **k: object) -> None:
        raise OSError("no processes in this sandbox")

    monkeypatch.setattr(pool, "ProcessPoolExecutor", refused)
    assert read_isolated(str(path), max_bytes=MAX) == extract(str(path), max_bytes=MAX)


def test_compare_names_the_limit_a_bomb_passed(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from neardup_core.cli import main

    bomb, good = tmp_path / "bomb.pdf", tmp_path / "good.pdf"
    bomb.write_bytes(stream_bomb_pdf(512 * MiB))
    good.write_bytes(pdf_bytes([[TEXT]]))
    monkeypatch.setattr(limits, "MEMORY", 64 * MiB)
    err = io.StringIO()
    assert main(["compare", str(bomb), str(good)], stdout=io.StringIO(), stderr=err) == 2
    assert "needed more than 64 MB of memory to read" in err.getvalue()


def test_a_word_97_file_is_read_again_within_the_limits_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Word 97-2003 converter is pure Python but unbounded: its piece bomb (40,000 pieces
    showing one passage) ends at the time limit in the reading process, and ``compare`` says
    which; a good one reads as in place."""
    from neardup_core.cli import main

    good = tmp_path / "good.doc"
    good.write_bytes(doc_bytes([TEXT, "第二段。"]))
    assert read_isolated(str(good), max_bytes=MAX) == extract(str(good), max_bytes=MAX)
    bomb = tmp_path / "bomb.doc"
    bomb.write_bytes(doc_bytes([f"{TEXT} 第{i}段。" for i in range(10)], repeat=40_000))
    monkeypatch.setattr(limits, "SECONDS", 2.0)
    err = io.StringIO()
    assert main(["compare", str(bomb), str(good)], stdout=io.StringIO(), stderr=err) == 2
    assert "took longer than 2 s to read: not compared" in err.getvalue()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_page_whose_pdf_became_a_bomb_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                jobs: int) -> None:
    """A member replaced by a bomb after the scan: the page reads it within the limits, in its
    comparing workers (armed as the scan's) or in its own process, and says it could not be
    read again."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"report {i}.pdf").write_bytes(pdf_bytes([[TEXT + f" Version {i}."]]))
    res = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(docs)])
    assert len(res.groups) == 1 and len(res.groups[0].members) == 3
    member = res.documents[res.groups[0].members[-1].doc].path
    Path(member).write_bytes(stream_bomb_pdf(512 * MiB))
    monkeypatch.setattr(limits, "MEMORY", 64 * MiB)
    monkeypatch.setattr(html_diffs, "AHEAD_FROM", 1)
    monkeypatch.setattr(html_diffs, "PER_TASK", 1)  # a worker each
    monkeypatch.setattr(html_diffs, "LOST_CHECK_S", 0.2)
    unread: list[str] = []
    page = tmp_path / "page.html"
    write_html(res, page, jobs=jobs, unread=unread)
    assert unread == [member]
    text = page.read_text(encoding="utf-8")
    assert "could not be read again" in text
    assert text.count('<span class="c">') >= 2  # the other member's changes, marked


def test_the_window_s_views_read_a_bomb_within_the_limits(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The pair view and the Excerpts tab read their files again as the scan read them: a
    PDF that became a bomb since is said unreadable, and the window keeps its memory."""
    from app.widgets.excerpt_view import load_pair
    from app.workers import load_text

    bomb, good = tmp_path / "bomb.pdf", tmp_path / "good.pdf"
    bomb.write_bytes(stream_bomb_pdf(512 * MiB))
    good.write_bytes(pdf_bytes([[TEXT]]))
    monkeypatch.setattr(limits, "MEMORY", 64 * MiB)
    got = load_text(str(bomb))
    assert got.text == "" and got.problem == \
        "needed more than 64 MB of memory to read: not compared"
    assert load_text(str(good)).text == extract(str(good), max_bytes=MAX).text  # type: ignore[union-attr]
    assert load_pair(str(bomb), str(good), ScanOptions())[0] is None


def test_the_scan_s_own_rereads_keep_within_the_limits(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The excerpt candidates verified in the scan's own process (few of them, or no workers)
    read their files again within the limits too: a PDF changed into a bomb since it was read
    drops its candidates, no more."""
    from neardup_core.scan.worker import shingle_sets

    bomb, good = tmp_path / "bomb.pdf", tmp_path / "good.pdf"
    bomb.write_bytes(stream_bomb_pdf(512 * MiB))
    good.write_bytes(pdf_bytes([[TEXT]]))
    monkeypatch.setattr(limits, "MEMORY", 64 * MiB)
    before = limits.resident_bytes()
    got = shingle_sets([str(bomb), str(good)], ScanOptions(), None)
    after = limits.resident_bytes()
    assert got[0] is None and got[1] is not None and got[1].size > 0
    if before is not None and after is not None:
        assert after - before < 128 * MiB


def test_excerpts_among_pdfs_are_verified_in_the_workers_however_few(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read in the scan's own process, each PDF would need a process of its own."""
    from neardup_core.scan import excerpts_pass

    said = [f"Section {i}: the committee reviewed item {i * 7} of the annual budget and "
            f"approved the revised plan for district {i}." for i in range(40)]
    root = tmp_path / "docs"
    root.mkdir()
    (root / "whole.pdf").write_bytes(pdf_bytes([said[:20], said[20:]]))
    (root / "part.pdf").write_bytes(pdf_bytes([said[5:15]]))
    (root / "other.txt").write_text("Other words about gardens and rivers. " * 30,
                                    encoding="utf-8")
    monkeypatch.setattr(excerpts_pass, "_verify_here",
                        lambda *a: pytest.fail("verified in the scan's process"))
    res = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    ex = res.excerpts()
    assert [res.documents[i].name for i in ex.part] == ["part.pdf"]
    assert [res.documents[i].name for i in ex.whole] == ["whole.pdf"]


def test_the_reading_process_is_kept_and_replaced_after_a_stop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One process for the reads of a report's diffs (a process a file cost 57 ms); a file
    read beside one that passes a limit is read again; new limits, a new process."""
    good, bomb = tmp_path / "good.pdf", tmp_path / "bomb.pdf"
    good.write_bytes(pdf_bytes([[TEXT]]))
    bomb.write_bytes(stream_bomb_pdf(512 * MiB))
    want = extract(str(good), max_bytes=MAX)
    assert read_isolated(str(good), max_bytes=MAX) == want
    first = isolated._reader
    assert first is not None
    assert read_isolated(str(good), max_bytes=MAX) == want and isolated._reader is first
    monkeypatch.setattr(limits, "MEMORY", 64 * MiB)  # other limits: another process
    assert read_isolated(str(good), max_bytes=MAX) == want and isolated._reader is not first
    got: dict[str, object] = {}

    def read(path: Path) -> None:
        got[path.name] = read_isolated(str(path), max_bytes=MAX)

    threads = [threading.Thread(target=read, args=(p,)) for p in (bomb, good, good)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert got["bomb.pdf"] == Problem(str(bomb), ProblemKind.TOO_LARGE,
                                      "needed more than 64 MB of memory to read: not compared")
    assert got["good.pdf"] == want
    assert read_isolated(str(good), max_bytes=MAX) == want  # a new process after the stop
