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
from collections.abc import Sequence
from typing import IO

import numpy as np

from neardup_core.messages import render as render_message
from neardup_core.messages import word
from neardup_core.models import Document
from neardup_core.report.columns import (
    blocks,
    decimal_texts,
    interleave,
    pick,
    split_paths,
    take,
)
from neardup_core.report.common import LocalClock, collector_paused
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
#: Excerpt rows put together at once (as many as a block of the groups' rows, about).
EXCERPT_BLOCK = 16_384


def share3(x: float) -> str:
    """Three decimals, where only 1 itself is 1.000."""
    text = f"{x:.3f}"
    return "0.999" if text == "1.000" and x < 1.0 else text


def _cell(s: str | None) -> str:
    return "" if s is None else _guard(visible(s))


def _guard(shown: str) -> str:
    """A shown cell, with an apostrophe before what a spreadsheet would run as a formula."""
    return "'" + shown if shown.startswith(_FORMULA_START) else shown


@collector_paused
def write_csv(result: ScanResult, fp_or_path: Destination, *, bom: bool | None = None,
              language: str = "en") -> None:
    """One row per group member. ``bom`` defaults to True for paths, False for open streams;
    ``language`` ("en", "zh_CN") words the header and the yes/no of the reference column."""
    with open_destination(fp_or_path, newline="") as fp:
        if _want_bom(bom, fp_or_path):
            fp.write("\ufeff")
        csv.writer(fp).writerow([word(c, language) for c in CSV_COLUMNS])
        cells = _DocumentCells(language)
        _write_member_rows(result, fp, cells)
        _write_excerpt_rows(result, fp, cells)


class _DocumentCells:
    """The cells a row says of its document (path, name, folder, size, modified, format,
    encoding, what was skipped), a column at a time for a block of documents, with their
    separators: a folder, a format or an encoding is escaped once however many files share
    it, across every block of the report."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.clock = LocalClock()
        self.folders: dict[str, str] = {}  # each folder's cell and its commas, once
        self.kinds: dict[tuple[str, str | None], str] = {}  # format and encoding: few
        self.worded: dict[str | None, str] = {}  # what a reader left out, in the language

    def columns(self, block: Sequence[Document]) -> tuple[list[str], ...]:
        """path; "," name ","; folder ","; size ","; modified ","; format "," encoding ",";
        and, apart, the skipped cell: the first seven are one run of a row's columns.
        (Comprehensions over the documents, measured quicker than ``attrgetter`` maps or one
        ``zip`` of all the attributes.)"""
        n = len(block)
        # escapes never hold nor remove a "/", so the shown path splits as the path does
        shown = visible_all([d.path for d in block])
        heads, names = split_paths(shown)
        folders, kinds, worded = self.folders, self.kinds, self.worded
        for h in set(heads) - folders.keys():
            folders[h] = f",{_quote(_guard(h))},"
        keys = [(d.format, d.encoding) for d in block]
        for key in set(keys) - kinds.keys():
            kinds[key] = f",{_quote(_cell(key[0]))},{_quote(_cell(key[1]))},"
        notes = [d.skipped for d in block]
        for note in set(notes) - worded.keys():
            worded[note] = _quote(_cell(note and render_message(note, self.language)))
        comma = [","] * n
        return (_cells(shown), comma, _cells(names), list(map(folders.__getitem__, heads)),
                [str(d.size) for d in block], comma,
                self.clock.plain_many([d.mtime for d in block]),
                list(map(kinds.__getitem__, keys)), list(map(worded.__getitem__, notes)))


def _write_member_rows(result: ScanResult, fp: IO[str], cells: _DocumentCells) -> None:
    """One row per group member, from the flat group table, a block of rows at a time, each
    block put together a column at a time (:mod:`.columns`) in the bytes :mod:`csv` writes
    (the default dialect: a cell is quoted when it holds a comma, a quote or a line break)."""
    language = cells.language
    yes, no = _quote(word("yes", language)), _quote(word("no", language))
    last = (f",{_quote(word('reference', language))},,\r\n",
            f",{_quote(word('copy', language))},,\r\n")
    docs = result.documents
    table = result.group_table
    offs = table.offsets
    distances = [f"{d}," for d in range(256)]

    for g0, g1 in blocks(offs):
        lo, hi = int(offs[g0]), int(offs[g1])
        n = hi - lo
        head = np.ones(n, dtype=np.int64)
        head[offs[g0:g1] - lo] = 0
        group = table.group_of[lo:hi] - g0
        starts = []
        for g in range(g0 + 1, g1 + 1):
            starts += (f"{g},{yes},", f"{g},{no},")
        *about, skipped = cells.columns(pick(docs, table.members[lo:hi]))
        fp.write(interleave([
            take(starts, 2 * group + head), *about,
            decimal_texts(table.similarity[lo:hi], 1, _similarity, scale=100.0,
                          below_one_at_most=999, dress=_comma),
            take(distances, table.distance[lo:hi]),
            decimal_texts(table.jaccard[lo:hi], 3, _jaccard, below_one_at_most=999,
                          dress=_comma, nan=","),
            skipped, take(last, head)]))


def _similarity(x: float) -> str:
    return percent(x)[:-1] + ","


def _percent_cell(x: float) -> str:
    return percent(x)[:-1]


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


def _write_excerpt_rows(result: ScanResult, fp: IO[str], cells: _DocumentCells) -> None:
    """One row per excerpt (a document mostly inside another), after the groups' rows: no
    group, no distance or Jaccard; the similarity is that of the two texts, and the whole it
    lies in and how much of it does close the row. Put together as the members' rows are."""
    if result.options.excerpt_containment is None:
        return
    ex = result.excerpts()
    docs = result.documents
    language = cells.language
    first = f",{_quote(word('no', language))},"
    relation = f",{_quote(word('excerpt', language))},"
    for lo in range(0, len(ex.part), EXCERPT_BLOCK):
        hi = min(len(ex.part), lo + EXCERPT_BLOCK)
        n = hi - lo
        *about, skipped = cells.columns(pick(docs, ex.part[lo:hi]))
        inside = _cells(visible_all([d.path for d in pick(docs, ex.whole[lo:hi])]))
        fp.write(interleave([
            [first] * n, *about,
            decimal_texts(ex.similarity[lo:hi], 1, _similarity, scale=100.0,
                          below_one_at_most=999, dress=_comma),
            [",,"] * n, skipped, [relation] * n, inside, [","] * n,
            decimal_texts(ex.containment[lo:hi], 1, _percent_cell, scale=100.0,
                          below_one_at_most=999),
            ["\r\n"] * n]))


@collector_paused
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
