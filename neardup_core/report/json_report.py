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
          "format": "txt",     # "txt", "docx", "pdf", "odt", "rtf" or "html"
          "encoding": "gb18030",   # null for .docx
          "similarity": 1.0,   # score against the reference, 0..1
          "distance": 0,       # SimHash Hamming distance to the reference, bits (0..64)
          "jaccard": 1.0,      # MinHash Jaccard estimate, null when MinHash was not computed
          "reference": true,
          "skipped": "1 picture not compared"   # only where the reader could not compare
                               # something (pictures, charts, embedded objects or documents of
                               # a .docx, .odt or RTF; a PDF's damaged pages); such files are
                               # "exact" only if those parts match
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

``write_json`` streams: the groups are written straight from the result's flat group table, a
member at a time, in the exact bytes ``json.dump(report_dict(result), indent=2)`` gives, one
function per section. Through ``json.dump`` with indentation (the pure-Python encoder) 200,000
files took 14 s; streamed they take well under one (``python -m benchmarks.report_speed``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from json.encoder import encode_basestring
from typing import IO, Any

from neardup_core.report.common import (
    Destination,
    LocalClock,
    display,
    iso_time,
    open_destination,
    texts_of,
)
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
    excerpts = _excerpts(result)
    groups = []
    for g in result.groups:
        members = []
        for k, m in enumerate(g.members):
            d = docs[m.doc]
            members.append({
                "path": display(d.path), "size": d.size, "modified": iso_time(d.mtime),
                "format": d.format, "encoding": d.encoding,
                "similarity": round_score(m.similarity), "distance": m.distance,
                "jaccard": None if m.jaccard is None else round_score(m.jaccard),
                "reference": k == 0,
            })
            if d.skipped:
                members[-1]["skipped"] = display(d.skipped)
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


def _excerpts(result: ScanResult) -> list[dict[str, Any]]:
    """The ``excerpts`` section: one entry per document mostly inside another (none when the
    scan did not look for excerpts)."""
    if result.options.excerpt_containment is None:
        return []
    docs = result.documents
    ex = result.excerpts()
    return [{"part": display(docs[p].path), "whole": display(docs[w].path),
             "containment": round_score(c), "similarity": round_score(s)}
            for p, w, c, s in zip(ex.part.tolist(), ex.whole.tolist(), ex.containment.tolist(),
                                  ex.similarity.tolist(), strict=True)]


def write_json(result: ScanResult, fp_or_path: Destination) -> None:
    """Write the JSON report (UTF-8, indented, keys in schema order), streamed section by
    section: the same bytes as ``json.dump(report_dict(result), fp, indent=2)``."""
    excerpts = _excerpts(result)  # a few per thousand documents: as objects, like the tail
    with open_destination(fp_or_path) as fp:
        _write_head(result, fp, excerpts)
        _write_groups(result, fp)
        _write_tail(result, fp, excerpts)


def _write_head(result: ScanResult, fp: IO[str], excerpts: list[dict[str, Any]]) -> None:
    """Everything before the groups: format, version, settings, roots, summary."""
    settings = result.options.to_dict()
    settings["threshold"] = result.threshold
    settings["group_mode"] = str(result.group_mode)
    head = {
        "format": REPORT_FORMAT,
        "version": REPORT_VERSION,
        "settings": _clean(settings),
        "roots": [display(r) for r in result.roots],
        "summary": {"files": len(result.documents), "groups": len(result.group_table),
                    "duplicates": result.duplicate_count, "problems": len(result.problems),
                    "excerpts": len(excerpts), "seconds": round(float(result.seconds), 3),
                    "partial": result.partial},
    }
    fp.write(json.dumps(head, ensure_ascii=False, indent=2)[:-2])  # all but the closing "\n}"


def _write_groups(result: ScanResult, fp: IO[str]) -> None:
    """The ``groups`` section, from the flat group table, in blocks of a few thousand lines."""
    fp.write(',\n  "groups": ')
    if not len(result.group_table):
        fp.write("[]")
        return
    fp.write("[\n")
    chunk: list[str] = []
    for k, block in enumerate(_group_blocks(result)):
        if k:
            chunk.append(",\n")
        chunk.append(block)
        if len(chunk) >= 2048:
            fp.write("".join(chunk))
            chunk.clear()
    fp.write("".join(chunk))
    fp.write("\n  ]")


def _group_blocks(result: ScanResult) -> Iterator[str]:
    """Each group as its indented JSON text."""
    docs = result.documents
    table = result.group_table
    offs = table.offsets.tolist()
    members = table.members.tolist()
    sim = texts_of(table.similarity, _score_text)
    dist = table.distance.tolist()
    jac = texts_of(table.jaccard, _score_text)
    weakest = texts_of(table.weakest, _score_text)
    exact = table.exact.tolist()
    clock = LocalClock()
    for g in range(len(offs) - 1):
        lo, hi = offs[g], offs[g + 1]
        rows = []
        for k in range(lo, hi):
            d = docs[members[k]]
            rows.append(_MEMBER % (
                encode_basestring(display(d.path)), d.size, _json_text(clock.iso(d.mtime)),
                encode_basestring(d.format), _json_text(d.encoding), sim[k], dist[k], jac[k],
                "true" if k == lo else "false",
                _SKIPPED % encode_basestring(display(d.skipped)) if d.skipped else ""))
        yield _GROUP % (g + 1, encode_basestring(display(docs[members[lo]].path)), weakest[g],
                        "true" if exact[g] else "false", ",\n".join(rows))


def _score_text(x: float) -> str:
    return "null" if x != x else repr(round_score(x))


def _json_text(s: str | None) -> str:
    return "null" if s is None else encode_basestring(s)


#: One member and one group as ``json.dump(..., indent=2)`` lays them out at their depth
#: (``%r`` of an int is what the encoder writes for it; scores come as text).
_MEMBER = ('        {\n          "path": %s,\n          "size": %r,\n          "modified": %s,'
           '\n          "format": %s,\n          "encoding": %s,\n          "similarity": %s,'
           '\n          "distance": %r,\n          "jaccard": %s,\n          "reference": %s%s'
           '\n        }')
#: What its reader could not compare, after ``reference``, only where there is something.
_SKIPPED = ',\n          "skipped": %s'
_GROUP = ('    {\n      "id": %r,\n      "reference": %s,\n      "weakest": %s,'
          '\n      "exact": %s,\n      "members": [\n%s\n      ]\n    }')


def _write_tail(result: ScanResult, fp: IO[str], excerpts: list[dict[str, Any]]) -> None:
    """The ``excerpts``, ``problems`` and ``notes`` sections and the end of the document."""
    problems = [{"path": display(p.path), "kind": str(p.kind), "message": display(p.message)}
                for p in result.problems]
    for key, value in (("excerpts", excerpts), ("problems", problems),
                       ("notes", [display(n) for n in result.notes])):
        text = json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")
        fp.write(f',\n  "{key}": {text}')
    fp.write("\n}\n")
