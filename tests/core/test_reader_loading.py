"""Reading a file loads that kind's reader only (issue 22): the scan's own process reads text
and RTF ahead of its workers, and must not load lxml, the zip guards or PDFium's wrapper for
it (the fork server loads every reader for the workers). A module-set test in a fresh
interpreter, not a timing test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import docx

ROOT = Path(__file__).resolve().parents[2]

#: What reading a .txt or an .rtf file must leave unloaded.
NOT_FOR_TEXT = ("lxml", "pypdfium2", "neardup_core.extract.docx", "neardup_core.extract.odt",
                "neardup_core.extract.html", "neardup_core.extract.pdf",
                "neardup_core.extract.zip_package", "neardup_core.extract.legacy")

PROBE = """
import json, sys
from neardup_core.extract import extract
got = [extract(p, max_bytes=1 << 20) for p in sys.argv[1:]]
print(json.dumps({"texts": [getattr(g, "text", None) for g in got],
                  "modules": sorted(sys.modules)}))
"""


def _read(*paths: Path) -> tuple[list[str | None], set[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", PROBE, *map(str, paths)], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=True, timeout=120)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return got["texts"], set(got["modules"])


def test_text_and_rtf_load_their_readers_only(tmp_path: Path) -> None:
    txt = tmp_path / "a.txt"
    txt.write_text("plain words here\n", encoding="utf-8")
    rtf = tmp_path / "b.rtf"
    rtf.write_text(r"{\rtf1\ansi rich words here\par}", encoding="ascii")
    texts, modules = _read(txt, rtf)
    assert texts[0] is not None and "plain words" in texts[0]
    assert texts[1] is not None and "rich words" in texts[1]
    assert {"neardup_core.extract.txt", "neardup_core.extract.rtf"} <= modules
    assert not [m for m in NOT_FOR_TEXT if m in modules]


def test_a_word_file_and_a_legacy_one_load_what_they_need(tmp_path: Path) -> None:
    """The probe above can see a reader loaded: a .docx loads its own, and a legacy .doc
    (which may be RTF, a web page or a .docx under that name) every reader."""
    d = docx.Document()
    d.add_paragraph("words in a Word file")
    d.save(str(tmp_path / "c.docx"))
    texts, modules = _read(tmp_path / "c.docx")
    assert texts[0] is not None and "Word file" in texts[0]
    assert {"lxml", "neardup_core.extract.docx"} <= modules
    assert "neardup_core.extract.pdf" not in modules
    (tmp_path / "d.doc").write_text(r"{\rtf1\ansi old words\par}", encoding="ascii")
    texts, modules = _read(tmp_path / "d.doc")
    assert texts[0] is not None and "old words" in texts[0]
    assert {"neardup_core.extract.docx", "neardup_core.extract.pdf",
            "neardup_core.extract.html"} <= modules
