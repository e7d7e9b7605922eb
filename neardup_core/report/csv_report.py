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

Rows are streamed from the result's flat group table; a folder, a format or an encoding is
escaped once however many files share it.
"""

from __future__ import annotations

import csv
import os
from typing import Any

from neardup_core.messages import render as render_message
from neardup_core.messages import word
from neardup_core.report.common import (
    Destination,
    LocalClock,
    local_time,
    open_destination,
    texts_of,
)
from neardup_core.report.wording import percent
from neardup_core.result import ScanResult
from neardup_core.visible import visible

CSV_COLUMNS = ("group", "reference", "path", "name", "folder", "size", "modified", "format",
               "encoding", "similarity (%)", "distance", "jaccard", "skipped", "relation",
               "inside", "containment (%)")
PROBLEM_COLUMNS = ("path", "name", "folder", "kind", "message")

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


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
        _write_member_rows(result, w, language)
        _write_excerpt_rows(result, w, language)


def _write_member_rows(result: ScanResult, w: Any, language: str) -> None:
    """One row per group member, from the flat group table, a few thousand rows at a time."""
    yes, no = word("yes", language), word("no", language)
    ref, copy = word("reference", language), word("copy", language)
    docs = result.documents
    table = result.group_table
    offs = table.offsets.tolist()
    members = table.members.tolist()
    sim = texts_of(table.similarity, lambda x: percent(x)[:-1])
    dist = table.distance.tolist()
    jac = texts_of(table.jaccard, lambda x: "" if x != x else share3(x))
    clock = LocalClock()
    shared: dict[str | None, str] = {}  # folders, formats and encodings: few, often repeated

    def once(text: str | None) -> str:
        got = shared.get(text)
        if got is None:
            got = shared[text] = _cell(text)
        return got

    def once_shown(text: str) -> str:
        got = shown_folders.get(text)
        if got is None:
            got = shown_folders[text] = _guard(text)
        return got

    shown_folders: dict[str, str] = {}

    worded: dict[str | None, str] = {}

    def skipped(note: str | None) -> str:
        """What a reader left out, in the report's language (few distinct notes)."""
        got = worded.get(note)
        if got is None:
            got = worded[note] = _cell(note and render_message(note, language))
        return got

    rows = []
    for g in range(len(offs) - 1):
        lo, hi = offs[g], offs[g + 1]
        for k in range(lo, hi):
            d = docs[members[k]]
            # escapes never hold nor remove a "/", so the shown path splits as the path does
            shown = visible(d.path)
            folder, name = os.path.split(shown)
            rows.append((g + 1, yes if k == lo else no, _guard(shown), _guard(name),
                         once_shown(folder), d.size, clock.plain(d.mtime), once(d.format),
                         once(d.encoding), sim[k], dist[k], jac[k], skipped(d.skipped),
                         ref if k == lo else copy, "", ""))
        if len(rows) >= 4096:
            w.writerows(rows)
            rows.clear()
    w.writerows(rows)


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
