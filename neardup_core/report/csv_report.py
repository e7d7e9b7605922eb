"""The CSV reports, for spreadsheets.

``write_csv`` has one row per group member and the columns group, reference (yes/no), path,
name, folder, size (bytes), modified (local ``YYYY-MM-DD HH:MM:SS``), format, encoding,
similarity (%), distance, jaccard, relation ("reference" or "copy" in a group, "excerpt" for a
document mostly inside another), inside (the whole an excerpt lies in) and containment (%):
the groups' rows first, then one row per excerpt, its similarity that of the two texts;
problems go to a second file (``write_problems_csv``) so each table stays rectangular. Files
written by path start with a UTF-8 BOM so Excel shows Chinese.
Cells that start with ``= + - @`` (or a tab / carriage return) get a leading apostrophe so a
spreadsheet never runs a crafted file name as a formula. Names and messages show control,
direction and invisible characters as escapes, as the text and HTML reports do
(:func:`~neardup_core.visible.visible`: a zero-width space as ``\\u200b``, a line break as
``\\n``, a backslash before an "n" doubled), since a spreadsheet is read by people who decide
what to delete from it. The JSON report keeps names exact, for programs.
"""

from __future__ import annotations

import csv
import os

from neardup_core.report.common import Destination, local_time, open_destination
from neardup_core.report.wording import percent
from neardup_core.result import ScanResult
from neardup_core.visible import visible

CSV_COLUMNS = ("group", "reference", "path", "name", "folder", "size", "modified", "format",
               "encoding", "similarity (%)", "distance", "jaccard", "relation", "inside",
               "containment (%)")
PROBLEM_COLUMNS = ("path", "name", "folder", "kind", "message")

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def share3(x: float) -> str:
    """Three decimals, where only 1 itself is 1.000."""
    text = f"{x:.3f}"
    return "0.999" if text == "1.000" and x < 1.0 else text


def _cell(s: str | None) -> str:
    if s is None:
        return ""
    s = visible(s)
    return "'" + s if s.startswith(_FORMULA_START) else s


def write_csv(result: ScanResult, fp_or_path: Destination, *, bom: bool | None = None) -> None:
    """One row per group member. ``bom`` defaults to True for paths, False for open streams."""
    docs = result.documents
    with open_destination(fp_or_path, newline="") as fp:
        if _want_bom(bom, fp_or_path):
            fp.write("\ufeff")
        w = csv.writer(fp)
        w.writerow(CSV_COLUMNS)
        for g in result.groups:
            for k, m in enumerate(g.members):
                d = docs[m.doc]
                w.writerow([g.id, "yes" if k == 0 else "no", _cell(d.path), _cell(d.name),
                            _cell(d.folder), d.size, local_time(d.mtime), _cell(d.format),
                            _cell(d.encoding), percent(m.similarity)[:-1], m.distance,
                            "" if m.jaccard is None else share3(m.jaccard),
                            "reference" if k == 0 else "copy", "", ""])
        if result.options.excerpt_containment is None:
            return
        ex = result.excerpts()
        for p, whole, c, s in zip(ex.part.tolist(), ex.whole.tolist(), ex.containment.tolist(),
                                  ex.similarity.tolist(), strict=True):
            d = docs[p]
            w.writerow(["", "no", _cell(d.path), _cell(d.name), _cell(d.folder), d.size,
                        local_time(d.mtime), _cell(d.format), _cell(d.encoding),
                        percent(s)[:-1], "", "", "excerpt", _cell(docs[whole].path),
                        percent(c)[:-1]])


def write_problems_csv(result: ScanResult, fp_or_path: Destination, *,
                       bom: bool | None = None) -> None:
    """The files that could not be compared, one row each: path, name, folder, kind, message."""
    with open_destination(fp_or_path, newline="") as fp:
        if _want_bom(bom, fp_or_path):
            fp.write("\ufeff")
        w = csv.writer(fp)
        w.writerow(PROBLEM_COLUMNS)
        for p in result.problems:
            w.writerow([_cell(p.path), _cell(os.path.basename(p.path)),
                        _cell(os.path.dirname(p.path)), str(p.kind), _cell(p.message)])


def _want_bom(bom: bool | None, dest: Destination) -> bool:
    return isinstance(dest, str | os.PathLike) if bom is None else bom
