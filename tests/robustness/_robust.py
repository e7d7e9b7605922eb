"""Shared helpers of the robustness suite: run a scan, and check a result is whole."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from neardup_core import ScanOptions, ScanResult, ScanSession


def scan(root: Path | str, progress=None, cancel=None, **options) -> ScanResult:
    """One scan of ``root`` in this process, without the user's cache unless asked."""
    options.setdefault("use_cache", False)
    options.setdefault("jobs", 1)
    session = ScanSession(ScanOptions(**options))
    if progress is None:
        return session.run([str(root)], cancel=cancel)
    return session.run([str(root)], progress, cancel)


def by_name(result: ScanResult) -> dict[str, str]:
    """File name -> "document" or the problem kind, for every file the scan reported."""
    out = {os.path.basename(d.path): "document" for d in result.documents}
    out.update({os.path.basename(p.path): str(p.kind) for p in result.problems})
    return out


def assert_whole(result: ScanResult) -> None:
    """Everything a view or report relies on holds, whatever stopped the scan."""
    n = len(result.documents)
    paths = [d.path for d in result.documents]
    assert len(set(paths)) == n, "a file is listed twice"
    assert not set(paths) & {p.path for p in result.problems}, "a file is both kinds"
    assert result.simhash.shape == (n,)
    assert result.minhash.shape[0] == n
    p = result.pairs
    assert len({len(p.a), len(p.b), len(p.score), len(p.exact), len(p.distance)}) == 1
    if len(p):
        assert int(p.a.min()) >= 0 and int(p.b.max()) < n
        assert bool(np.all(p.a < p.b))
        assert bool(np.all((p.score >= result.floor - 1e-6) & (p.score <= 1.0 + 1e-6)))
    seen: set[int] = set()
    for g in result.groups:
        docs = [m.doc for m in g.members]
        assert len(docs) >= 2 and len(set(docs)) == len(docs)
        assert all(0 <= d < n for d in docs)
        assert not seen & set(docs), "a document is in two groups"
        seen.update(docs)
        assert g.members[0].similarity == pytest.approx(1.0)
    if result.partial:
        assert any("cancel" in note.lower() or "cut short" in note.lower()
                   for note in result.notes), result.notes


#: chmod does not stop root: permission tests simulate the refusal there instead.
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
