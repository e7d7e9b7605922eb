"""The near-copies folder of ``benchmarks.dense``: what it writes."""

from __future__ import annotations

from pathlib import Path

from benchmarks.dense import build
from neardup_core.fingerprint.fingerprinter import normalized_jaccard


def test_the_folder_holds_copies_versions_and_one_unrelated_file(tmp_path: Path) -> None:
    build(tmp_path, copies=3, variants=12)
    copies = sorted(tmp_path.glob("copy *.txt"))
    versions = sorted(tmp_path.glob("version *.txt"))
    assert len(copies) == 3 and len(versions) == 12
    base = copies[0].read_text(encoding="utf-8")
    assert all(c.read_text(encoding="utf-8") == base for c in copies)
    texts = [v.read_text(encoding="utf-8") for v in versions]
    assert len(set(texts)) == 12 and base not in texts           # each version its own edit
    assert all(0.6 < normalized_jaccard(base, t) < 1.0 for t in texts)  # near, not equal
    unrelated = (tmp_path / "unrelated.txt").read_text(encoding="utf-8")
    assert normalized_jaccard(base, unrelated) < 0.2
