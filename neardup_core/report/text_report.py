"""The plain-text report of the ``neardup`` command line: one block per group, then the
excerpts (documents mostly inside another), the problems and the notes.

Each member's line shows ``*`` for the reference, its similarity, its SimHash distance, its
encoding (or format) and its path. Paths and messages show control and direction characters
as escapes (:mod:`neardup_core.visible`), so nothing in a file name can act on the terminal.
"""

from __future__ import annotations

from typing import IO

from neardup_core.report.common import Destination, open_destination
from neardup_core.report.wording import percent, weakest_label
from neardup_core.result import ScanResult
from neardup_core.visible import visible


def write_text(result: ScanResult, fp_or_path: Destination) -> None:
    """Write the text report to a path (replaced only by a complete report, like every
    format) or to an open stream (the caller's: not closed)."""
    with open_destination(fp_or_path) as out:
        _write(result, out)


def _write(result: ScanResult, out: IO[str]) -> None:
    docs = result.documents
    for g in result.groups:
        kind = "identical text" if g.exact else weakest_label(result.group_mode, g.weakest)
        out.write(f"Group {g.id} ({len(g)} files, {kind})\n")
        for m in g.members:
            d = docs[m.doc]
            mark = "*" if m.doc == g.reference else " "
            enc = d.encoding or d.format
            out.write(f"  {mark} {percent(m.similarity):>6s}  d={m.distance:<2d}  {enc:<10s} "
                      f"{visible(d.path)}\n")
    ex = result.excerpts() if result.options.excerpt_containment is not None else None
    if ex is not None and len(ex):
        out.write(f"\nExcerpts ({len(ex)}: documents mostly inside another):\n")
        for p, w, c in zip(ex.part.tolist(), ex.whole.tolist(), ex.containment.tolist(),
                           strict=True):
            out.write(f"  {percent(c):>6s} of {visible(docs[p].path)}\n"
                      f"         is inside {visible(docs[w].path)}\n")
    if result.problems:
        out.write(f"\nProblems ({len(result.problems)}):\n")
        for pr in result.problems:
            out.write(f"  [{pr.kind}] {visible(pr.path)}: {visible(pr.message)}\n")
    for note in result.notes:
        out.write(f"\nNote: {visible(note)}\n")
