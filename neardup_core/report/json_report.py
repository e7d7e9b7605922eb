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
          "format": "txt",     # "txt", "docx", "pdf", "odt", "rtf", "html" or "doc"
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
import operator
from collections.abc import Iterator
from json.encoder import encode_basestring
from typing import IO, Any

import numpy as np

from neardup_core.report.columns import blocks, decimal_texts, interleave, pick, take
from neardup_core.report.common import LocalClock, collector_paused, has_surrogates, iso_time
from neardup_core.report.destination import Destination, display, open_destination
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


@collector_paused
def write_json(result: ScanResult, fp_or_path: Destination) -> None:
    """Write the JSON report (UTF-8, indented, keys in schema order), streamed section by
    section: the same bytes as ``json.dump(report_dict(result), fp, indent=2)``."""
    with open_destination(fp_or_path) as fp:
        excerpts, section = _excerpts_section(result)
        _write_head(result, fp, excerpts)
        _write_groups(result, fp)
        _write_tail(result, fp, section)


def _write_head(result: ScanResult, fp: IO[str], excerpts: int) -> None:
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
                    "excerpts": excerpts, "seconds": round(float(result.seconds), 3),
                    "partial": result.partial},
    }
    fp.write(json.dumps(head, ensure_ascii=False, indent=2)[:-2])  # all but the closing "\n}"


def _write_groups(result: ScanResult, fp: IO[str]) -> None:
    """The ``groups`` section, from the flat group table, a block of members at a time."""
    fp.write(',\n  "groups": ')
    if not len(result.group_table):
        fp.write("[]")
        return
    fp.write("[\n")
    for text in _group_blocks(result):
        fp.write(text)
    fp.write("\n  ]")


def _group_blocks(result: ScanResult) -> Iterator[str]:
    """The groups as their indented JSON text, a block of whole groups at a time (the second
    and later blocks start with the comma after the one before).

    Each block is put together a column at a time (:mod:`.columns`): every cell that changes
    from member to member (path, size, modified, scores...) is a list of texts, each made once
    per distinct value where values repeat (scores, formats, what was skipped), and the lines
    are those columns interleaved with the constant text between them, joined once."""
    docs = result.documents
    table = result.group_table
    offs = table.offsets
    similarity = score_texts(table.similarity)
    jaccard = score_texts(table.jaccard)
    weakest = score_texts(table.weakest)
    exact = table.exact.tolist()
    clock = LocalClock()
    kinds: dict[tuple[str, str | None], str] = {}  # (format, encoding): few, each worded once
    skipped: dict[str | None, str] = {"": "", None: ""}
    ends = (_MEMBER_END, _MEMBER_END + _GROUP_END)
    for g0, g1 in blocks(offs):
        lo, hi = int(offs[g0]), int(offs[g1])
        n = hi - lo
        first = offs[g0:g1] - lo
        block = pick(docs, table.members[lo:hi])
        paths = _json_strings(list(map(_PATH, block)))
        heads = [_NEXT_MEMBER] * n
        for g, at in zip(range(g0, g1), first.tolist(), strict=True):
            heads[at] = _GROUP_HEAD % (",\n" if g else "", g + 1, paths[at], weakest[g],
                                       "true" if exact[g] else "false")
        reference = np.zeros(n, dtype=np.int64)
        reference[first] = 1
        last = np.zeros(n, dtype=np.int64)
        last[first[1:] - 1] = 1
        last[-1] = 1
        modified = clock.iso_many(list(map(_MTIME, block)))
        if None in modified:
            mod_open, mod_close = _MODIFIED, _FORMAT_KEY
            modified = [_json_text(m) for m in modified]
        else:  # the quotes go with the text around them
            mod_open, mod_close = _MODIFIED + '"', '"' + _FORMAT_KEY
        # the cells between the varying ones are joined to the few-valued ones next to them,
        # each distinct value worded once a block: fewer columns to interleave
        codecs = list(map(_FORMAT_AND_ENCODING, block))
        for kind in set(codecs) - kinds.keys():
            kinds[kind] = (encode_basestring(kind[0]) + _ENCODING_KEY + _json_text(kind[1])
                           + _SIMILARITY)
        middle = {k: mod_close + kinds[k] for k in set(codecs)}
        notes = list(map(_SKIPPED_OF, block))
        seen = list(set(notes))
        for note in seen:
            if note not in skipped:
                skipped[note] = _SKIPPED % encode_basestring(display(note))
        which = dict(zip(seen, range(len(seen)), strict=True))
        note = np.fromiter(map(which.__getitem__, notes), np.int64, n)
        yield interleave([
            heads, paths, [_SIZE] * n, list(map(str, map(_SIZE_OF, block))), [mod_open] * n,
            modified, list(map(middle.__getitem__, codecs)), similarity[lo:hi],
            _distance_cells(table.distance[lo:hi]), jaccard[lo:hi],
            take([_REFERENCE[r] + skipped[k] + ends[e]
                  for k in seen for r in (0, 1) for e in (0, 1)],
                 note * 4 + reference * 2 + last)])


def _distance_cells(distance: np.ndarray) -> list[str]:
    """Each distance with the keys around it (``_DISTANCE``, the value, ``_JACCARD``)."""
    d = np.asarray(distance)
    if d.dtype.kind not in "ui" or (d.size and (int(d.min()) < 0 or int(d.max()) > 255)):
        return [_DISTANCE + str(x) + _JACCARD for x in d.tolist()]
    return take(_DISTANCES, d)


def score_texts(values: np.ndarray) -> list[str]:
    """:func:`_score_text` of each score, worked out with numpy (:func:`.columns.decimal_texts`:
    four decimals, a score under 1 at most 0.9999, NaN ``null``), in the shortest words that
    give the float back, as ``repr`` does."""
    return decimal_texts(values, 4, _score_text, below_one_at_most=9999, dress=_shortest,
                         nan="null")


def _shortest(fixed: str) -> str:
    """"0.1230" -> "0.123", "1.0000" -> "1.0": ``repr`` of the float a fixed text stands for
    (four decimals or fewer: no shorter decimal is the same float)."""
    short = fixed.rstrip("0")
    return short + "0" if short.endswith(".") else short


def _json_strings(texts: list[str]) -> list[str]:
    """Each text as a JSON string (:func:`display`, then ``encode_basestring``); the column
    is looked over for undecodable bytes at once, and mended one text at a time only then."""
    if has_surrogates("".join(texts)):
        texts = list(map(display, texts))
    return list(map(encode_basestring, texts))


def _score_text(x: float) -> str:
    return "null" if x != x else repr(round_score(x))


def _json_text(s: str | None) -> str:
    return "null" if s is None else encode_basestring(s)


_PATH = operator.attrgetter("path")
_SIZE_OF = operator.attrgetter("size")
_MTIME = operator.attrgetter("mtime")
_FORMAT_AND_ENCODING = operator.attrgetter("format", "encoding")
_SKIPPED_OF = operator.attrgetter("skipped")

#: One group and its members as ``json.dump(..., indent=2)`` lays them out at their depth,
#: cut where a member's values go (``%r`` of an int is what the encoder writes for it; scores
#: come as text). A group's text starts with its first member's path, the others' with the
#: comma after the member before.
_MEMBER_START = '        {\n          "path": '
_GROUP_HEAD = ('%s    {\n      "id": %r,\n      "reference": %s,\n      "weakest": %s,'
               '\n      "exact": %s,\n      "members": [\n' + _MEMBER_START)
_NEXT_MEMBER = ",\n" + _MEMBER_START
_SIZE = ',\n          "size": '
_MODIFIED = ',\n          "modified": '
_FORMAT_KEY = ',\n          "format": '
_ENCODING_KEY = ',\n          "encoding": '
_SIMILARITY = ',\n          "similarity": '
_DISTANCE = ',\n          "distance": '
_JACCARD = ',\n          "jaccard": '
_REFERENCE = (',\n          "reference": false', ',\n          "reference": true')
#: A member's distance and the keys around it, for each distance a uint8 can hold.
_DISTANCES = tuple(_DISTANCE + str(x) + _JACCARD for x in range(256))
#: What its reader could not compare, after ``reference``, only where there is something.
_SKIPPED = ',\n          "skipped": %s'
_MEMBER_END = "\n        }"
_GROUP_END = "\n      ]\n    }"


def _excerpts_section(result: ScanResult) -> tuple[int, str]:
    """How many excerpts there are, and the ``excerpts`` section's indented JSON text: the
    bytes ``json.dumps`` gives for :func:`_excerpts` (its scores are floats: NaN would be
    ``NaN``), put together a column at a time (thousands of entries at 200,000 files)."""
    if result.options.excerpt_containment is None:
        return 0, "[]"
    ex = result.excerpts()
    n = len(ex.part)
    if not n:
        return 0, "[]"
    docs = result.documents
    starts = [_NEXT_EXCERPT] * n
    starts[0] = _EXCERPT_START
    return n, "[\n" + interleave([
        starts, _json_strings(list(map(_PATH, pick(docs, ex.part)))), [_EXCERPT_WHOLE] * n,
        _json_strings(list(map(_PATH, pick(docs, ex.whole)))), [_CONTAINMENT] * n,
        _float_texts(ex.containment), [_EXCERPT_SIMILARITY] * n, _float_texts(ex.similarity),
        [_EXCERPT_END] * n]) + "\n  ]"


def _float_texts(values: np.ndarray) -> list[str]:
    """What ``json.dumps`` writes for ``round_score`` of each value."""
    return decimal_texts(values, 4, _float_text, below_one_at_most=9999, dress=_shortest,
                         nan="NaN")


def _float_text(x: float) -> str:
    return json.dumps(round_score(x))


#: An entry of the ``excerpts`` section, as ``json.dumps(..., indent=2)`` lays it out there.
_EXCERPT_START = '    {\n      "part": '
_NEXT_EXCERPT = ",\n" + _EXCERPT_START
_EXCERPT_WHOLE = ',\n      "whole": '
_CONTAINMENT = ',\n      "containment": '
_EXCERPT_SIMILARITY = ',\n      "similarity": '
_EXCERPT_END = "\n    }"


def _write_tail(result: ScanResult, fp: IO[str], excerpts: str) -> None:
    """The ``excerpts`` (their text given), ``problems`` and ``notes`` sections and the end of
    the document."""
    fp.write(',\n  "excerpts": ' + excerpts)
    problems = [{"path": display(p.path), "kind": str(p.kind), "message": display(p.message)}
                for p in result.problems]
    for key, value in (("problems", problems), ("notes", [display(n) for n in result.notes])):
        text = json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")
        fp.write(f',\n  "{key}": {text}')
    fp.write("\n}\n")
