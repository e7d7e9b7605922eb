"""A Word 97-2003 file that converts to far more than it holds (issue 20): its 40,000 pieces
all show one passage, so a file of 700 KB is a text of millions of characters, and the
pure-Python converter's formatting pass alone is quadratic in the pieces (6 s for the first
24,000 here) before it would model the text character by character for minutes and gigabytes.
Read only in a worker, it ends at the watchdog's time limit as a problem that says so, the scan
goes on with every other file, and the converter's scratch folder goes with the worker.

The limits are lowered through the module's constants (read when the scan starts its workers).
Deadlines only, no timed assertions.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from _hostile_formats import TEXT, MiB
from _pdfium_patch import FORKING
from _robust import assert_whole
from formatgen import doc_bytes

from neardup_core import ProblemKind, ScanOptions, ScanSession
from neardup_core.extract import limits

pytestmark = FORKING


def _orphaned_scratch() -> list[str]:
    """Scratch folders whose process is gone: the scan removes those when it starts, so any
    found after it come from a worker that ended during it without removing its own."""
    out = []
    for name in os.listdir(tempfile.gettempdir()):
        owner = name.removeprefix("neardup-reading-").split("-", 1)[0]
        if name.startswith("neardup-reading-") and owner.isdigit():
            try:
                os.kill(int(owner), 0)
            except ProcessLookupError:
                out.append(name)
            except OSError:  # another user's
                pass
    return out


def test_a_doc_whose_pieces_repeat_ends_at_the_time_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    passage = [f"{TEXT} 第{i}段。" for i in range(10)]
    bomb = doc_bytes(passage, repeat=40_000)  # ~700 KB, 40,000 times the passage
    assert len(bomb) < 2 * MiB
    (root / "bomb.doc").write_bytes(bomb)
    (root / "good.doc").write_bytes(doc_bytes([TEXT]))
    (root / "good.txt").write_text(TEXT, encoding="utf-8")
    for i in range(3):  # other Word files in the same batch as the bomb
        (root / f"report {i}.doc").write_bytes(doc_bytes([f"Report {i}. 第{i}季度报告。"]))
    monkeypatch.setattr(limits, "SECONDS", 3.0)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    assert_whole(result)
    [problem] = result.problems
    assert os.path.basename(problem.path) == "bomb.doc"
    assert problem.kind == ProblemKind.TOO_LARGE
    assert problem.message == "took longer than 3 s to read: not compared"
    assert len(result.documents) == 5
    groups = [{os.path.basename(result.documents[m.doc].path) for m in g.members}
              for g in result.groups]
    assert {"good.doc", "good.txt"} in groups
    assert _orphaned_scratch() == []  # the stopped worker's scratch folder is gone too


_FORKED_SCAN = """
import sys
from neardup_core import ScanOptions, ScanSession
if __name__ == "__main__":
    result = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context="fork").run(
        [sys.argv[1]])
    print(len(result.documents), len(result.problems))
"""


def test_forked_workers_start_while_the_scan_reads_ahead(tmp_path: Path) -> None:
    """Tests fork their workers from the scan's process (``mp_context="fork"``), whose main
    thread reads text files ahead meanwhile and so imports the encoding detector as the pool's
    thread forks: a worker forked then found that module half-imported, its lock held for good,
    and waited forever in its warm-up. A fresh process, as a test run's first scan is."""
    import subprocess
    import sys

    root = tmp_path / "docs"
    root.mkdir()
    (root / "good.txt").write_text(TEXT, encoding="utf-8")
    for i in range(3):
        (root / f"report {i}.doc").write_bytes(doc_bytes([f"Report {i}. 第{i}季度报告。"]))
    script = tmp_path / "scan.py"
    script.write_text(_FORKED_SCAN, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(root)], capture_output=True,
                          text=True, timeout=120)  # a deadline: it takes a second or two
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["4", "0"]
