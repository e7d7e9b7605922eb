"""The streamed report writers give exactly what the object-building ones gave (issue 22):
the JSON bytes of ``json.dump(report_dict(result), indent=2)`` for any result and grouping."""

from __future__ import annotations

import json

import pytest
from _factories import D, make_result

from neardup_core.models import GroupMode, Problem, ProblemKind
from neardup_core.report import render, report_dict, write_json
from neardup_core.report.json_report import iso_by_datetime, iso_modified

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
def test_fast_modified_time_matches_datetime(mtime):
    assert iso_modified(mtime) == iso_by_datetime(mtime)
