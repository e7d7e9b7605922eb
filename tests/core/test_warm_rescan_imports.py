"""A rescan of an unchanged folder, answered whole from the cache, loads nothing it does not use
(issue 22): no reader (the encoding detector and chardet, lxml, PDFium), no Chinese segmenter,
no pair search, grouping or SciPy, no other report writer, no fork server. A module-set test, not
a timing test: which modules the fresh interpreter of each run holds when it is done. The first
run of the same probe must load the readers (else the test would prove nothing), and both runs
must write the same report."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import docx
import textgen as tg
from formatgen import pdf_bytes

ROOT = Path(__file__).resolve().parents[2]

#: What a rescan answered by the kept result must not import (each is loaded on first use).
NOT_ON_THE_WARM_PATH = (
    "chardet", "jieba", "rjieba", "lxml", "pypdfium2", "scipy",
    "neardup_core.extract.docx", "neardup_core.extract.txt", "neardup_core.extract.pdf",
    "neardup_core.extract.odt", "neardup_core.extract.rtf", "neardup_core.extract.html",
    "neardup_core.extract.legacy", "neardup_core.extract.zip_package",
    "neardup_core.extract.encoding", "neardup_core.extract.encoding.detect",
    "neardup_core.pairs.find", "neardup_core.pairs.hamming_index", "neardup_core.grouping",
    "neardup_core.report.csv_report", "neardup_core.report.html_report",
    "neardup_core.report.text_report", "neardup_core.diff", "multiprocessing.forkserver",
)
#: What the first scan of the same folder, through the same probe, does load in its own
#: process: the probe sees what a read loads...
READ_ON_THE_COLD_PATH = ("chardet", "rjieba", "neardup_core.extract.encoding.detect",
                         "neardup_core.pairs.find")
#: ... and what ``neardup compare`` of the Word file loads (the scan reads it in its workers,
#: and its excerpt candidates are checked there: a folder with a PDF always has workers)
READ_BY_COMPARE = ("lxml", "neardup_core.extract.docx")

PROBE = """
import contextlib, io, json, multiprocessing, sys
from neardup_core.cli import main
err = io.StringIO()
code = main({argv!r}, stderr=err)
print(json.dumps({{"code": code, "err": err.getvalue(), "modules": sorted(sys.modules),
                  "children": len(multiprocessing.active_children())}}))
"""


def _run(argv: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=True, timeout=300)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["code"] == 0, got["err"]
    return got


def _folder(root: Path) -> Path:
    """Every kind of reading a scan does: UTF-8 and GBK text, Chinese and English, a Word file
    and a PDF, with near-duplicates among them so the report has groups."""
    docs = root / "docs"
    docs.mkdir()
    zh, en = tg.zh_doc(1, 24), tg.en_doc(2, 24)
    (docs / "zh.txt").write_text(zh, encoding="utf-8")
    (docs / "zh-gbk.txt").write_bytes(tg.typos(zh, 3, 2).encode("gbk", errors="replace"))
    (docs / "en.txt").write_text(en, encoding="utf-8")
    (docs / "en-copy.txt").write_text(tg.typos(en, 4, 3), encoding="utf-8")
    d = docx.Document()
    for para in tg.delete_sentences(en, 5, 2).split("\n"):
        d.add_paragraph(para)
    d.save(str(docs / "en.docx"))
    (docs / "en.pdf").write_bytes(pdf_bytes([tg.en_doc(6, 12).split("\n")]))
    return docs


def _report(path: Path) -> dict:
    """The report without what may differ between two scans of the same folder: the time it
    took and the cache settings (the first scan ran without one)."""
    got = json.loads(path.read_text(encoding="utf-8"))
    got["summary"].pop("seconds")
    for key in ("use_cache", "cache_path"):
        got["settings"].pop(key)
    return got


def test_a_rescan_answered_by_the_cache_reads_nothing_and_reports_the_same(tmp_path: Path):
    docs = _folder(tmp_path)
    cache = str(tmp_path / "cache.sqlite")
    base = ["scan", str(docs), "--format", "json"]
    cold = _run([*base, "--no-cache", "-o", str(tmp_path / "cold.json")])
    first = _run([*base, "--cache", cache, "-o", str(tmp_path / "first.json")])
    # the kept result replayed: no report of it is kept in this language (see report.kept)
    warm = _run([*base, "--cache", cache, "--language", "zh_CN",
                 "-o", str(tmp_path / "warm.json")])
    # ... and the report the first scan kept, written again without loading the scan
    kept = _run([*base, "--cache", cache, "-o", str(tmp_path / "kept.json")])

    for run in (warm, kept):
        assert "unchanged since the last scan" in run["err"]
        loaded = [m for m in NOT_ON_THE_WARM_PATH if m in run["modules"]]
        assert loaded == []
        assert run["children"] == 0
    assert "neardup_core.scan.session" in warm["modules"]
    assert "numpy" not in kept["modules"] and "neardup_core.scan.session" not in kept["modules"]
    for run in (cold, first):  # the same probe, reading the files, loads what a read needs
        assert [m for m in READ_ON_THE_COLD_PATH if m not in run["modules"]] == []
    compared = _run(["compare", str(docs / "en.docx"), str(docs / "en.txt")])
    assert [m for m in READ_BY_COMPARE if m not in compared["modules"]] == []
    # and the list names modules that exist (a misspelt one would never be loaded)
    assert [m for m in NOT_ON_THE_WARM_PATH if importlib.util.find_spec(m) is None] == []

    report = _report(tmp_path / "cold.json")
    assert report["summary"]["files"] == 6 and report["summary"]["groups"] >= 2
    assert _report(tmp_path / "warm.json") == report
    assert _report(tmp_path / "kept.json") == report
    assert _report(tmp_path / "first.json") == report


#: What the scan's own process must not load when workers read the folder: it reads only text
#: and RTF ahead of them, and the fork server loads every reader for the workers.
NOT_IN_A_COLD_SCANS_MAIN_PROCESS = (
    "lxml", "pypdfium2", "neardup_core.extract.docx", "neardup_core.extract.odt",
    "neardup_core.extract.html", "neardup_core.extract.pdf", "neardup_core.extract.legacy",
    "neardup_core.extract.zip_package", "neardup_core.report.csv_report",
    "neardup_core.report.html_report", "neardup_core.report.text_report", "neardup_core.diff",
)


def test_a_cold_scan_leaves_the_readers_to_its_workers(tmp_path: Path):
    """Enough text for worker processes (over INPROCESS_MAX_FILES files and INPROCESS_MAX_BYTES
    bytes) and a Word file only a worker reads: the scan's own process holds no reader but the
    text one, and the Word file is in the report all the same."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for k in range(60):  # distinct texts: no boilerplate, so no re-read in this process
        (docs / f"t{k:02d}.txt").write_text(tg.en_doc(100 + k, 600), encoding="utf-8")
    d = docx.Document()
    d.add_paragraph(tg.en_doc(7, 24))
    d.save(str(docs / "w.docx"))
    run = _run(["scan", str(docs), "--format", "json", "--no-cache", "-j", "2",
                "-o", str(tmp_path / "cold.json")])
    assert "multiprocessing.forkserver" in run["modules"]  # workers did the reading
    assert [m for m in NOT_IN_A_COLD_SCANS_MAIN_PROCESS if m in run["modules"]] == []
    report = _report(tmp_path / "cold.json")
    assert report["summary"]["files"] == 61 and report["problems"] == []
