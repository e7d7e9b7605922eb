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

import numpy as np

from neardup_core.report.columns import blocks, decimal_texts, interleave, pick, take
from neardup_core.report.common import collector_paused
from neardup_core.report.destination import Destination, open_destination
from neardup_core.report.wording import group_labels, percent
from neardup_core.result import ScanResult
from neardup_core.visible import visible, visible_all


@collector_paused
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
    """One block per group, streamed from the flat group table a block of lines at a time,
    each block's lines put together a column at a time (:mod:`.columns`)."""
    docs = result.documents
    table = result.group_table
    offs = table.offsets
    if not len(table):
        return
    kinds = group_labels(table.weakest, table.exact, result.group_mode,
                         exact_label="identical text")
    firsts = [f"Group {g + 1} ({n} files, {kind})\n  * " for g, (n, kind) in
              enumerate(zip(np.diff(offs).tolist(), kinds, strict=True))]
    distances = [f"{d:<2d}  " for d in range(256)]
    padded: dict[str | None, str] = {}  # encodings and formats, padded once each
    notes: dict[str | None, str] = {}
    for g0, g1 in blocks(offs):
        lo, hi = int(offs[g0]), int(offs[g1])
        head = np.zeros(hi - lo, dtype=bool)
        head[offs[g0:g1] - lo] = True
        block = pick(docs, table.members[lo:hi])
        mark = [firsts[g] for g in range(g0, g1)]
        column = ["    "] * (hi - lo)
        for k, first in zip(np.flatnonzero(head).tolist(), mark, strict=True):
            column[k] = first
        sim = decimal_texts(table.similarity[lo:hi], 1, _sim_text, scale=100.0,
                            below_one_at_most=999, dress=_dress)
        dist = take(distances, table.distance[lo:hi])
        enc = []
        for d in block:
            e = d.encoding or d.format
            got = padded.get(e)
            if got is None:
                got = padded[e] = f"{e:<10s} "
            enc.append(got)
        paths = visible_all([d.path for d in block])
        ends = []
        for d in block:
            got = notes.get(d.skipped)
            if got is None:
                got = notes[d.skipped] = f"  [{visible(d.skipped)}]\n" if d.skipped else "\n"
            ends.append(got)
        out.write(interleave([column, sim, dist, enc, paths, ends]))


def _sim_text(x: float) -> str:
    return f"{percent(x):>6s}  d="


def _dress(number: str) -> str:
    return f"{number + '%':>6s}  d="


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
