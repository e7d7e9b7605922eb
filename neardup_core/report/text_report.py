"""The plain-text report of the ``neardup`` command line: one block per group, then the
excerpts (documents mostly inside another), the problems and the notes.

Each member's line shows ``*`` for the reference, its similarity, its SimHash distance, its
encoding (or format) and its path, then in brackets what its reader could not compare
("[1 picture not compared]"), if anything. Paths and messages show control and direction
characters as escapes (:mod:`neardup_core.visible`), so nothing in a file name can act on the
terminal.

It is always in English, whatever ``--language`` says: it is the terminal's, read next to the
command's own English output and by scripts that grep it; the CSV and HTML reports are the ones
written for people in their language.
"""

from __future__ import annotations

from typing import IO

from neardup_core.report.common import Destination, open_destination, texts_of
from neardup_core.report.wording import percent, weakest_label
from neardup_core.result import ScanResult
from neardup_core.visible import visible


def write_text(result: ScanResult, fp_or_path: Destination) -> None:
    """Write the text report to a path (replaced only by a complete report, like every
    format) or to an open stream (the caller's: not closed)."""
    with open_destination(fp_or_path) as out:
        _write(result, out)


def _write(result: ScanResult, out: IO[str]) -> None:
    _write_groups(result, out)
    _write_excerpts(result, out)
    _write_problems_and_notes(result, out)


def _write_groups(result: ScanResult, out: IO[str]) -> None:
    """One block per group, streamed from the flat group table."""
    docs = result.documents
    table = result.group_table
    offs = table.offsets.tolist()
    members = table.members.tolist()
    sim = texts_of(table.similarity, lambda x: f"{percent(x):>6s}")
    dist = table.distance.tolist()
    weakest = table.weakest.tolist()
    exact = table.exact.tolist()
    lines: list[str] = []
    for g in range(len(offs) - 1):
        lo, hi = offs[g], offs[g + 1]
        kind = "identical text" if exact[g] else weakest_label(result.group_mode, weakest[g])
        lines.append(f"Group {g + 1} ({hi - lo} files, {kind})\n")
        for k in range(lo, hi):
            d = docs[members[k]]
            mark = "*" if k == lo else " "
            enc = d.encoding or d.format
            note = f"  [{visible(d.skipped)}]" if d.skipped else ""
            lines.append(f"  {mark} {sim[k]}  d={dist[k]:<2d}  {enc:<10s} {visible(d.path)}"
                         f"{note}\n")
        if len(lines) >= 4096:
            out.write("".join(lines))
            lines.clear()
    out.write("".join(lines))


def _write_excerpts(result: ScanResult, out: IO[str]) -> None:
    """Documents mostly inside another, each with the share of it found in the whole."""
    docs = result.documents
    ex = result.excerpts() if result.options.excerpt_containment is not None else None
    if ex is not None and len(ex):
        out.write(f"\nExcerpts ({len(ex)}: documents mostly inside another):\n")
        for p, w, c in zip(ex.part.tolist(), ex.whole.tolist(), ex.containment.tolist(),
                           strict=True):
            out.write(f"  {percent(c):>6s} of {visible(docs[p].path)}\n"
                      f"         is inside {visible(docs[w].path)}\n")


def _write_problems_and_notes(result: ScanResult, out: IO[str]) -> None:
    if result.problems:
        out.write(f"\nProblems ({len(result.problems)}):\n")
        for pr in result.problems:
            out.write(f"  [{pr.kind}] {visible(pr.path)}: {visible(pr.message)}\n")
    for note in result.notes:
        out.write(f"\nNote: {visible(note)}\n")
