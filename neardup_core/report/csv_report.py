"""The CSV reports, for spreadsheets.

``write_csv`` has one row per group member and the columns group, reference (yes/no), path,
name, folder, size (bytes), modified (local ``YYYY-MM-DD HH:MM:SS``), format, encoding,
similarity (%), distance, jaccard, skipped (what the reader could not compare, "1 picture not
compared"; empty when it read everything), relation ("reference" or "copy" in a group,
"excerpt" for a document mostly inside another), inside (the whole an excerpt lies in) and
containment (%): the groups' rows first, then one row per excerpt, its similarity that of the
two texts; problems go to a second file (``write_problems_csv``) so each table stays
rectangular. Files written by path start with a UTF-8 BOM so Excel shows Chinese. Headers and
the words in cells follow the report's language.
Cells that start with ``= + - @`` (or a tab / carriage return) get a leading apostrophe so a
spreadsheet never runs a crafted file name as a formula. Names and messages show control,
direction and invisible characters as escapes, as the text and HTML reports do
(:func:`~neardup_core.visible.visible`: a zero-width space as ``\\u200b``, a line break as
``\\n``, a backslash before an "n" doubled), since a spreadsheet is read by people who decide
what to delete from it. The JSON report keeps names exact, for programs.

Rows are streamed from the result's flat group table, a block of rows at a time, each block
put together a column at a time (:mod:`.columns`) in the bytes :mod:`csv` writes; a folder, a
format or an encoding is escaped once however many files share it.
"""

from __future__ import annotations

import csv
import os
from typing import IO, Any

import numpy as np

from neardup_core.messages import render as render_message
from neardup_core.messages import word
from neardup_core.report.columns import (
    blocks,
    decimal_texts,
    interleave,
    pick,
    split_paths,
    take,
)
from neardup_core.report.common import LocalClock, local_time
from neardup_core.report.destination import Destination, open_destination
from neardup_core.report.wording import percent
from neardup_core.result import ScanResult
from neardup_core.visible import visible, visible_all

CSV_COLUMNS = ("group", "reference", "path", "name", "folder", "size", "modified", "format",
               "encoding", "similarity (%)", "distance", "jaccard", "skipped", "relation",
               "inside", "containment (%)")
PROBLEM_COLUMNS = ("path", "name", "folder", "kind", "message")

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_CHARS = frozenset(_FORMULA_START)


def share3(x: float) -> str:
    """Three decimals, where only 1 itself is 1.000."""
    text = f"{x:.3f}"
    return "0.999" if text == "1.000" and x < 1.0 else text


def _cell(s: str | None) -> str:
    return "" if s is None else _guard(visible(s))


def _guard(shown: str) -> str:
    """A shown cell, with an apostrophe before what a spreadsheet would run as a formula."""
    return "'" + shown if shown.startswith(_FORMULA_START) else shown


def write_csv(result: ScanResult, fp_or_path: Destination, *, bom: bool | None = None,
              language: str = "en") -> None:
    """One row per group member. ``bom`` defaults to True for paths, False for open streams;
    ``language`` ("en", "zh_CN") words the header and the yes/no of the reference column."""
    with open_destination(fp_or_path, newline="") as fp:
        if _want_bom(bom, fp_or_path):
            fp.write("\ufeff")
        w = csv.writer(fp)
        w.writerow([word(c, language) for c in CSV_COLUMNS])
        _write_member_rows(result, fp, language)
        _write_excerpt_rows(result, w, language)


def _write_member_rows(result: ScanResult, fp: IO[str], language: str) -> None:
    """One row per group member, from the flat group table, a block of rows at a time, each
    block put together a column at a time (:mod:`.columns`) in the bytes :mod:`csv` writes
    (the default dialect: a cell is quoted when it holds a comma, a quote or a line break)."""
    yes, no = _quote(word("yes", language)), _quote(word("no", language))
    last = (f",{_quote(word('reference', language))},,\r\n",
            f",{_quote(word('copy', language))},,\r\n")
    docs = result.documents
    table = result.group_table
    offs = table.offsets
    distances = [f"{d}," for d in range(256)]
    clock = LocalClock()
    folders: dict[str, str] = {}  # each folder's cell and its comma, once
    kinds: dict[tuple[str, str | None], str] = {}  # format and encoding: few, often repeated
    worded: dict[str | None, str] = {}  # what a reader left out, in the report's language

    for g0, g1 in blocks(offs):
        lo, hi = int(offs[g0]), int(offs[g1])
        n = hi - lo
        head = np.ones(n, dtype=np.int64)
        head[offs[g0:g1] - lo] = 0
        group = table.group_of[lo:hi] - g0
        starts = []
        for g in range(g0 + 1, g1 + 1):
            starts += (f"{g},{yes},", f"{g},{no},")
        block = pick(docs, table.members[lo:hi])
        # escapes never hold nor remove a "/", so the shown path splits as the path does
        shown = visible_all([d.path for d in block])
        heads, names = split_paths(shown)
        for h in set(heads) - folders.keys():
            folders[h] = f",{_quote(_guard(h))},"
        keys = [(d.format, d.encoding) for d in block]
        for key in set(keys) - kinds.keys():
            kinds[key] = f",{_quote(_cell(key[0]))},{_quote(_cell(key[1]))},"
        notes = [d.skipped for d in block]
        for note in set(notes) - worded.keys():
            worded[note] = _quote(_cell(note and render_message(note, language)))
        comma = [","] * n
        fp.write(interleave([
            take(starts, 2 * group + head), _cells(shown), comma, _cells(names),
            list(map(folders.__getitem__, heads)),
            [str(d.size) for d in block], comma,
            clock.plain_many([d.mtime for d in block]), list(map(kinds.__getitem__, keys)),
            decimal_texts(table.similarity[lo:hi], 1, _similarity, scale=100.0,
                          below_one_at_most=999, dress=_comma),
            take(distances, table.distance[lo:hi]),
            decimal_texts(table.jaccard[lo:hi], 3, _jaccard, below_one_at_most=999,
                          dress=_comma, nan=","),
            list(map(worded.__getitem__, notes)), take(last, head)]))


def _similarity(x: float) -> str:
    return percent(x)[:-1] + ","


def _jaccard(x: float) -> str:
    return ("" if x != x else share3(x)) + ","


def _comma(text: str) -> str:
    return text + ","


def _quote(cell: str) -> str:
    """A cell as :mod:`csv` writes it: quoted, its quotes doubled, when it holds a comma, a
    quote or a line break; as it is otherwise."""
    if '"' in cell or "," in cell or "\n" in cell or "\r" in cell:
        return '"' + cell.replace('"', '""') + '"'
    return cell


def _cells(shown: list[str]) -> list[str]:
    """Shown names or paths as cells (:func:`_guard`, :func:`_quote`): the column is looked
    over at once, and as it is when no cell needs either (almost always)."""
    joined = "".join(shown)
    if ('"' in joined or "," in joined or "\n" in joined or "\r" in joined
            or not _FORMULA_CHARS.isdisjoint({s[:1] for s in shown})):
        return [_quote(_guard(s)) for s in shown]
    return shown


def _write_excerpt_rows(result: ScanResult, w: Any, language: str) -> None:
    """One row per excerpt (a document mostly inside another), after the groups' rows."""
    if result.options.excerpt_containment is None:
        return
    docs = result.documents
    no, excerpt = word("no", language), word("excerpt", language)
    ex = result.excerpts()
    for p, whole, c, s in zip(ex.part.tolist(), ex.whole.tolist(), ex.containment.tolist(),
                              ex.similarity.tolist(), strict=True):
        d = docs[p]
        w.writerow(["", no, _cell(d.path), _cell(d.name), _cell(d.folder), d.size,
                    local_time(d.mtime), _cell(d.format), _cell(d.encoding),
                    percent(s)[:-1], "", "", _cell(d.skipped and render_message(d.skipped,
                                                                                language)),
                    excerpt,
                    _cell(docs[whole].path), percent(c)[:-1]])


def write_problems_csv(result: ScanResult, fp_or_path: Destination, *,
                       bom: bool | None = None, language: str = "en") -> None:
    """The files that could not be compared, one row each: path, name, folder, kind, message
    (the header, the kind and the message in ``language``)."""
    with open_destination(fp_or_path, newline="") as fp:
        if _want_bom(bom, fp_or_path):
            fp.write("\ufeff")
        w = csv.writer(fp)
        w.writerow([word(c, language) for c in PROBLEM_COLUMNS])
        for p in result.problems:
            w.writerow([_cell(p.path), _cell(os.path.basename(p.path)),
                        _cell(os.path.dirname(p.path)), word(str(p.kind), language),
                        _cell(render_message(p.message, language))])


def _want_bom(bom: bool | None, dest: Destination) -> bool:
    return isinstance(dest, str | os.PathLike) if bom is None else bom
