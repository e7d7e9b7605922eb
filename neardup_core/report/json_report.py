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
import math
import time
from collections.abc import Iterator
from datetime import datetime
from json.encoder import encode_basestring
from typing import IO, Any

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


def iso_by_datetime(mtime: float) -> str | None:
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
    groups = []
    for g in result.groups:
        members = []
        for k, m in enumerate(g.members):
            d = docs[m.doc]
            members.append({
                "path": display(d.path), "size": d.size, "modified": iso_by_datetime(d.mtime),
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
                    "seconds": round(float(result.seconds), 3), "partial": result.partial},
        "groups": groups,
        "problems": [{"path": display(p.path), "kind": str(p.kind), "message": display(p.message)}
                     for p in result.problems],
        "notes": [display(n) for n in result.notes],
    }


def write_json(result: ScanResult, fp_or_path: Destination) -> None:
    """Write the JSON report (UTF-8, indented, keys in schema order), streamed section by
    section: the same bytes as ``json.dump(report_dict(result), fp, indent=2)``."""
    with open_destination(fp_or_path) as fp:
        _write_head(result, fp)
        _write_groups(result, fp)
        _write_tail(result, fp)


def _write_head(result: ScanResult, fp: IO[str]) -> None:
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
                    "seconds": round(float(result.seconds), 3), "partial": result.partial},
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
    sim = table.similarity.tolist()
    dist = table.distance.tolist()
    jac = table.jaccard.tolist()
    weakest = table.weakest.tolist()
    exact = table.exact.tolist()
    iso = _IsoCache()
    for g in range(len(offs) - 1):
        lo, hi = offs[g], offs[g + 1]
        rows = []
        for k in range(lo, hi):
            d = docs[members[k]]
            j = jac[k]
            enc = d.encoding
            rows.append(_MEMBER % (
                encode_basestring(display(d.path)), d.size, iso(d.mtime),
                encode_basestring(d.format), "null" if enc is None else encode_basestring(enc),
                round_score(sim[k]), dist[k], "null" if j != j else repr(round_score(j)),
                "true" if k == lo else "false"))
        yield _GROUP % (g + 1, encode_basestring(display(docs[members[lo]].path)),
                        round_score(weakest[g]), "true" if exact[g] else "false",
                        ",\n".join(rows))


#: One member and one group as ``json.dump(..., indent=2)`` lays them out at their depth
#: (``%r`` of a float or int is what the encoder writes for it).
_MEMBER = ('        {\n          "path": %s,\n          "size": %r,\n          "modified": %s,'
           '\n          "format": %s,\n          "encoding": %s,\n          "similarity": %r,'
           '\n          "distance": %r,\n          "jaccard": %s,\n          "reference": %s'
           '\n        }')
_GROUP = ('    {\n      "id": %r,\n      "reference": %s,\n      "weakest": %r,'
          '\n      "exact": %s,\n      "members": [\n%s\n      ]\n    }')


def _write_tail(result: ScanResult, fp: IO[str]) -> None:
    """The ``problems`` and ``notes`` sections and the end of the document."""
    problems = [{"path": display(p.path), "kind": str(p.kind), "message": display(p.message)}
                for p in result.problems]
    for key, value in (("problems", problems), ("notes", [display(n) for n in result.notes])):
        text = json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")
        fp.write(f',\n  "{key}": {text}')
    fp.write("\n}\n")


class _IsoCache:
    """:func:`iso_modified` for many times, the local date and minute looked up once per
    minute: files copied together share their minute, and ``time.localtime`` is most of the
    cost. A minute is cached only when its first and last second have the same whole-minute
    UTC offset (a change of offset can fall inside a minute only for old local mean times)."""

    def __init__(self) -> None:
        self.minutes: dict[int, tuple[str, str] | None] = {}

    def __call__(self, mtime: float) -> str:
        try:
            whole = math.floor(mtime)
            if round((mtime - whole) * 1e6) >= 1_000_000:
                whole += 1
        except (OverflowError, ValueError):
            return _json_text(iso_by_datetime(mtime))
        minute, second = divmod(whole, 60)
        parts = self.minutes.get(minute, False)
        if parts is False:
            parts = self.minutes[minute] = _minute_parts(minute)
        if parts is None:
            return _json_text(iso_modified(mtime))
        return f"{parts[0]}{second:02d}{parts[1]}"


def _minute_parts(minute: int) -> tuple[str, str] | None:
    """('"YYYY-MM-DDTHH:MM:', '+HH:MM"') of a minute since the epoch, or None when it must be
    worked out second by second."""
    try:
        first, last = time.localtime(minute * 60), time.localtime(minute * 60 + 59)
    except (OverflowError, OSError, ValueError):
        return None
    off = first.tm_gmtoff
    if off is None or off != last.tm_gmtoff or off % 60 or not 1 < first.tm_year < 9999:
        return None
    sign = "-" if off < 0 else "+"
    hours, minutes = divmod(abs(off) // 60, 60)
    return (f'"{first.tm_year:04d}-{first.tm_mon:02d}-{first.tm_mday:02d}T{first.tm_hour:02d}:'
            f"{first.tm_min:02d}:", f'{sign}{hours:02d}:{minutes:02d}"')


def _json_text(s: str | None) -> str:
    return "null" if s is None else encode_basestring(s)


def iso_modified(mtime: float) -> str | None:
    """:func:`iso_by_datetime` through ``time.localtime``: the same text (seconds rounded as
    ``datetime.fromtimestamp`` rounds them), at a fraction of the cost."""
    try:
        whole = math.floor(mtime)
        if round((mtime - whole) * 1e6) >= 1_000_000:
            whole += 1
        t = time.localtime(whole)
    except (OverflowError, OSError, ValueError):
        return iso_by_datetime(mtime)
    off = t.tm_gmtoff
    if off is None or off % 60 or not 1 < t.tm_year < 9999:  # edges: as datetime says
        return iso_by_datetime(mtime)
    sign = "-" if off < 0 else "+"
    hours, minutes = divmod(abs(off) // 60, 60)
    return (f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:"
            f"{t.tm_sec:02d}{sign}{hours:02d}:{minutes:02d}")
