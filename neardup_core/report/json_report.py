"""The JSON report, for programs (``write_json``, ``report_dict``), version 1.

Keys are stable; new keys may be added, and a change to existing ones bumps ``version``::

    {
      "format": "neardup-report",
      "version": 1,
      "settings": {...ScanOptions.to_dict(), "threshold": 0.6, "group_mode": "connected"},
                      # threshold and group_mode are the ones the groups were made with
      "roots": ["/abs/folder", ...],
      "summary": {
        "files": 120,          # documents compared (files that yielded text)
        "groups": 7,
        "duplicates": 9,       # files in a group that are not its reference
        "problems": 3,         # files that could not be compared, listed under "problems"
        "excerpts": 2,         # documents mostly inside another, listed under "excerpts"
        "seconds": 4.2,
        "partial": false       # true when the scan was cancelled or cut short (see "notes")
      },
      "groups": [{
        "id": 1,
        "reference": "/abs/original.txt",   # the file to keep
        "weakest": 0.83,       # connected groups: lowest pair score holding the group together;
                               # strict and cohesive: lowest member score against the reference
        "exact": false,        # every member has the same normalised text
        "members": [{          # the reference first
          "path": "/abs/original.txt", "size": 2048,
          "modified": "2024-05-01T12:30:00+08:00",   # ISO 8601, local time with offset
          "format": "txt",     # "txt" or "docx"
          "encoding": "gb18030",   # null for .docx
          "similarity": 1.0,   # score against the reference, 0..1
          "distance": 0,       # SimHash Hamming distance to the reference, bits (0..64)
          "jaccard": 1.0,      # MinHash Jaccard estimate, null when MinHash was not computed
          "reference": true
        }, ...]
      }, ...],
      "excerpts": [{           # most contained first; never two files already in one group
        "part": "/abs/answer.txt",  # the document that lies mostly inside the whole
        "whole": "/abs/article.docx",
        "containment": 0.83,   # share of the part's shingles found in the whole, 0..1, exact
        "similarity": 0.31     # exact Jaccard of the two shingle sets, 0..1
      }, ...],               # at settings.excerpt_containment and above; [] when it is null
      "problems": [{"path": "/abs/broken.docx", "kind": "corrupt", "message": "..."}],
      "notes": ["..."]
    }

All paths are absolute. Text is UTF-8. A file name that is not valid UTF-8 is written with
U+FFFD in place of each undecodable byte (:func:`~neardup_core.report.common.display`). Names
are otherwise kept exact, zero-width, direction and control characters included (JSON escapes
what must be escaped): this report is for programs, which must be able to open the files it
names. The reports for people (text, CSV, HTML) show such characters as visible escapes
(:mod:`neardup_core.visible`) instead.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from neardup_core.report.common import Destination, display, open_destination
from neardup_core.result import ScanResult

REPORT_FORMAT = "neardup-report"
REPORT_VERSION = 1


def _clean(obj: Any) -> Any:
    if isinstance(obj, str):
        return display(obj)
    if isinstance(obj, dict):
        return {display(str(k)): _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    return obj


def _iso(mtime: float) -> str | None:
    try:
        return datetime.fromtimestamp(mtime).astimezone().isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return None


def round_score(x: float) -> float:
    """Four decimals; a score under 1 stays under 1 (1.0 means the same text)."""
    r = round(float(x), 4)
    return 0.9999 if r >= 1.0 and x < 1.0 else r


def report_dict(result: ScanResult) -> dict[str, Any]:
    """The JSON report as plain Python values (see the module docstring for the schema)."""
    docs = result.documents
    settings = result.options.to_dict()
    settings["threshold"] = result.threshold
    settings["group_mode"] = str(result.group_mode)
    ex = result.excerpts() if result.options.excerpt_containment is not None else None
    excerpts = [] if ex is None else [
        {"part": display(docs[p].path), "whole": display(docs[w].path),
         "containment": round_score(c), "similarity": round_score(s)}
        for p, w, c, s in zip(ex.part.tolist(), ex.whole.tolist(), ex.containment.tolist(),
                              ex.similarity.tolist(), strict=True)]
    groups = []
    for g in result.groups:
        members = []
        for k, m in enumerate(g.members):
            d = docs[m.doc]
            members.append({
                "path": display(d.path), "size": d.size, "modified": _iso(d.mtime),
                "format": d.format, "encoding": d.encoding,
                "similarity": round_score(m.similarity), "distance": m.distance,
                "jaccard": None if m.jaccard is None else round_score(m.jaccard),
                "reference": k == 0,
            })
        groups.append({"id": g.id, "reference": display(docs[g.reference].path),
                       "weakest": round_score(g.weakest), "exact": g.exact, "members": members})
    return {
        "format": REPORT_FORMAT,
        "version": REPORT_VERSION,
        "settings": _clean(settings),
        "roots": [display(r) for r in result.roots],
        "summary": {"files": len(docs), "groups": len(result.groups),
                    "duplicates": result.duplicate_count, "problems": len(result.problems),
                    "excerpts": len(excerpts), "seconds": round(float(result.seconds), 3),
                    "partial": result.partial},
        "groups": groups,
        "excerpts": excerpts,
        "problems": [{"path": display(p.path), "kind": str(p.kind), "message": display(p.message)}
                     for p in result.problems],
        "notes": [display(n) for n in result.notes],
    }


def write_json(result: ScanResult, fp_or_path: Destination) -> None:
    """Write the JSON report (UTF-8, indented, keys in schema order)."""
    data = report_dict(result)
    with open_destination(fp_or_path) as fp:
        json.dump(data, fp, ensure_ascii=False, indent=2)
        fp.write("\n")
