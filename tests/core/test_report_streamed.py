"""The streamed report writers give exactly what the object-building ones gave (issue 22):
the JSON bytes of ``json.dump(report_dict(result), indent=2)`` for any result and grouping."""

from __future__ import annotations

import json

import pytest
from _factories import D, make_result

from neardup_core.models import GroupMode, Problem, ProblemKind
from neardup_core.report import render, report_dict, write_json
from neardup_core.report.common import LocalClock, iso_time, local_time

SPECS = [
    D("/data/报告/季度报告.txt", "第一季度的销售情况良好。\n结束。", cluster=1),
    D("/data/报告/季度报告 (副本).txt", "第一季度的销售情况良好。\n结束。", cluster=1),
    D("/data/报告/修改.docx", "第一季度的销售情况良好！\n结束。", cluster=1, changed=6),
    D('/data/en/"quoted"\\back\u200bslash\n.txt', "The quick brown fox.", cluster=2),
    D("/data/caf\udce9.txt", "The quick red fox.", cluster=2, changed=10),
    D("/data/alone.txt", "nothing like the others"),
]


def _old(result) -> str:
    return json.dumps(report_dict(result), ensure_ascii=False, indent=2) + "\n"


@pytest.mark.parametrize("mode", list(GroupMode))
@pytest.mark.parametrize("threshold", [0.4, 0.6, 0.95])
def test_streamed_json_is_byte_for_byte_the_dumped_one(mode, threshold):
    result = make_result(SPECS, problems=[
        Problem("/data/b\udcb0.docx", ProblemKind.CORRUPT, 'bad "zip"\ttruncated')],
        notes=("Cache was off.", "第二条"), floor=0.4).regroup(threshold, mode)
    assert render(write_json, result) == _old(result)


def test_streamed_json_with_no_groups_problems_or_notes():
    result = make_result([D("/data/a.txt", "one"), D("/data/b.txt", "two")])
    text = render(write_json, result)
    assert text == _old(result)
    assert json.loads(text)["groups"] == []


@pytest.mark.parametrize("mtime", [0.0, -1.5, 1.9999999, 1e9 + 0.9999996, 1e9 + 0.4999995,
                                   1_700_000_000.25, 253402300799.0, 1e20, -62135596800.0,
                                   float("nan"), float("inf")])
def test_the_clock_gives_the_words_of_datetime(mtime):
    clock = LocalClock()
    for t in (mtime, mtime + 1, mtime):  # a minute worked out, then read from the cache
        assert clock.iso(t) == iso_time(t)
        assert clock.plain(t) == local_time(t)


def test_the_clock_across_many_times_and_zones(monkeypatch):
    import random
    import time

    rng = random.Random(5)
    try:
        for zone in ("UTC", "Asia/Shanghai", "America/New_York", "Asia/Kolkata",
                     "Europe/Dublin"):
            monkeypatch.setenv("TZ", zone)
            time.tzset()
            clock = LocalClock()
            for _ in range(2000):
                t = rng.choice([rng.uniform(-3e9, 4e9), 1_700_000_000 + rng.uniform(0, 600)])
                assert clock.iso(t) == iso_time(t), (zone, t)
                assert clock.plain(t) == local_time(t), (zone, t)
    finally:
        monkeypatch.undo()
        time.tzset()


def _csv_as_before(result) -> str:
    """The CSV writer as it was, building every group as objects (the reference)."""
    import csv
    import io

    from neardup_core.report.common import local_time
    from neardup_core.report.csv_report import CSV_COLUMNS, share3
    from neardup_core.report.wording import percent
    from neardup_core.visible import visible

    def cell(s):
        if s is None:
            return ""
        s = visible(s)
        return "'" + s if s.startswith(("=", "+", "-", "@", "\t", "\r")) else s

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_COLUMNS)
    for g in result.groups:
        for k, m in enumerate(g.members):
            d = result.documents[m.doc]
            w.writerow([g.id, "yes" if k == 0 else "no", cell(d.path), cell(d.name),
                        cell(d.folder), d.size, local_time(d.mtime), cell(d.format),
                        cell(d.encoding), percent(m.similarity)[:-1], m.distance,
                        "" if m.jaccard is None else share3(m.jaccard), cell(d.skipped),
                        "reference" if k == 0 else "copy", "", ""])
    if result.options.excerpt_containment is not None:
        ex = result.excerpts()
        for p, whole, c, s in zip(ex.part.tolist(), ex.whole.tolist(),
                                  ex.containment.tolist(), ex.similarity.tolist(), strict=True):
            d = result.documents[p]
            w.writerow(["", "no", cell(d.path), cell(d.name), cell(d.folder), d.size,
                        local_time(d.mtime), cell(d.format), cell(d.encoding),
                        percent(s)[:-1], "", "", cell(d.skipped), "excerpt",
                        cell(result.documents[whole].path), percent(c)[:-1]])
    return buf.getvalue()


def _text_as_before(result) -> str:
    from neardup_core.report.wording import percent, weakest_label
    from neardup_core.visible import visible

    out = []
    for g in result.groups:
        kind = "identical text" if g.exact else weakest_label(result.group_mode, g.weakest)
        out.append(f"Group {g.id} ({len(g)} files, {kind})\n")
        for m in g.members:
            d = result.documents[m.doc]
            mark = "*" if m.doc == g.reference else " "
            enc = d.encoding or d.format
            note = f"  [{visible(d.skipped)}]" if d.skipped else ""
            out.append(f"  {mark} {percent(m.similarity):>6s}  d={m.distance:<2d}  {enc:<10s} "
                       f"{visible(d.path)}{note}\n")
    return "".join(out)


@pytest.mark.parametrize("mode", list(GroupMode))
@pytest.mark.parametrize("threshold", [0.4, 0.6, 0.95])
def test_streamed_csv_and_text_are_what_they_were(mode, threshold):
    from neardup_core.report import write_csv, write_text

    specs = [*SPECS, D("/data/=sum(1).txt", "第一季度的销售情况良好。\n结束。", cluster=1,
                       changed=3),
             D("/data\\/+\\n\\.txt", "第一季度的销售情况良好。\n结束。", cluster=1, changed=4),
             D("/data//x\u202e\\/-y\r.txt", "The quick brown fox.", cluster=2, changed=2),
             D("@top.txt", "The quick brown fox.", cluster=2, changed=1)]
    result = make_result(specs, notes=("n",), floor=0.4).regroup(threshold, mode)
    assert render(write_csv, result) == _csv_as_before(result)
    assert render(write_text, result).startswith(_text_as_before(result))
    assert render(write_text, result).endswith("\nNote: n\n")


def test_streamed_json_says_what_was_skipped_as_the_dumped_one():
    import dataclasses

    result = make_result(SPECS, floor=0.4)
    docs = list(result.documents)
    docs[0] = dataclasses.replace(docs[0], skipped="1 picture not compared")
    docs[2] = dataclasses.replace(docs[2], skipped='2 "objects"\u202e')
    result = dataclasses.replace(result, documents=tuple(docs)).regroup(0.4)
    text = render(write_json, result)
    assert text == _old(result)
    assert '"skipped": "1 picture not compared"' in text
