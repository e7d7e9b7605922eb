"""The excerpt stage of a scan: which documents lie mostly inside another.

Candidates come from the winnowed hashes the workers computed with the other fingerprints
(:func:`neardup_core.pairs.containment.candidates`); each is then verified on the exact
shingle sets of both texts, read again here (only the documents of candidates, each once), with
the boilerplate lines the scan set aside left out as they were for the fingerprints. Reading
again costs a fraction of a scan (candidates are few) and makes containment exact, so no pair
under the floor is ever reported and the reports can say precisely how much of a part lies in
its whole. A file that changed or vanished since it was read drops its pairs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from neardup_core.fingerprint import boilerplate as bp
from neardup_core.fingerprint.fingerprinter import DocFingerprint
from neardup_core.fingerprint.winnowing import exact_shingles
from neardup_core.models import Document, ExcerptTable, ScanOptions
from neardup_core.pairs.containment import candidates, verify
from neardup_core.progress import Stage
from neardup_core.scan.stages import RunStages

__all__ = ["ExcerptsPass", "find_excerpts"]


def find_excerpts(docs: Sequence[Document], winnows: Sequence[np.ndarray], units: Sequence[int],
                  opt: ScanOptions, drop_lines: np.ndarray | None, stats: dict) -> ExcerptTable:
    """Verified excerpts among ``docs`` (their winnowed sets and unit counts, as their
    fingerprints hold them), down to the floor. The local and the Dask scan both call it."""
    t = time.monotonic()
    n = len(docs)
    keep = np.zeros(n, dtype=bool)
    seen: set[str] = set()
    for i, d in enumerate(docs):  # one document per distinct text
        if d.text_hash not in seen:
            seen.add(d.text_hash)
            keep[i] = True
    shingles = np.fromiter((max(u - opt.shingle + 1, 1) for u in units), np.int64, count=n)
    part, whole, _ = candidates(winnows, shingles, keep)

    def shingle_set(i: int) -> np.ndarray | None:
        try:
            text = bp.read_text(docs[i].path, opt)
        except Exception:  # a file that cannot be read again drops its pairs, never the scan
            return None
        if text is None:
            return None
        return exact_shingles(text, opt.shingle, drop_lines)

    table = verify(part, whole, shingle_set)
    stats["excerpts"] = {"candidates": int(part.shape[0]), "verified": len(table),
                         "seconds": round(time.monotonic() - t, 4)}
    return table


class ExcerptsPass(RunStages):
    """The excerpt stage of a local run (a mixin: the run sets ``boiler_lines``)."""

    boiler_lines: np.ndarray | None

    def _excerpts(self, docs: list[Document], fps: list[DocFingerprint]) -> ExcerptTable:
        if self.opt.excerpt_containment is None or self.partial or len(docs) < 2:
            return ExcerptTable.empty()
        self.emit(Stage.PAIRS, 0, 1, "Looking for excerpts")
        table = find_excerpts(docs, [fp.winnow for fp in fps], [fp.units for fp in fps],
                              self.opt, self.boiler_lines, self.stats)
        self.emit(Stage.PAIRS, 1, 1, "")
        return table
