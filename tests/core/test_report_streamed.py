"""The streamed report writers give exactly what the object-building ones gave (issue 22):
the JSON bytes of ``json.dump(report_dict(result), indent=2)`` for any result and grouping."""

from __future__ import annotations

import json
import time

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
            times = []
            for _ in range(2000):
                t = rng.choice([rng.uniform(-3e9, 4e9), 1_700_000_000 + rng.uniform(0, 600)])
                times.append(t)
                assert clock.iso(t) == iso_time(t), (zone, t)
                assert clock.plain(t) == local_time(t), (zone, t)
            assert LocalClock().iso_many(times) == [iso_time(t) for t in times], zone
            assert LocalClock().plain_many(times) == [local_time(t) for t in times], zone
    finally:
        monkeypatch.undo()
        time.tzset()


def _csv_as_before(result, language: str = "en") -> str:
    """The CSV writer as it was, building every group as objects (the reference), with what
    each reader skipped worded in ``language``."""
    import csv
    import io

    from neardup_core.messages import render as render_message
    from neardup_core.report.common import local_time
    from neardup_core.report.csv_report import CSV_COLUMNS, share3
    from neardup_core.report.wording import percent
    from neardup_core.visible import visible

    def cell(s):
        if s is None:
            return ""
        s = visible(s)
        return "'" + s if s.startswith(("=", "+", "-", "@", "\t", "\r")) else s

    def skipped(d):
        return cell(d.skipped and render_message(d.skipped, language))

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_COLUMNS)
    for g in result.groups:
        for k, m in enumerate(g.members):
            d = result.documents[m.doc]
            w.writerow([g.id, "yes" if k == 0 else "no", cell(d.path), cell(d.name),
                        cell(d.folder), d.size, local_time(d.mtime), cell(d.format),
                        cell(d.encoding), percent(m.similarity)[:-1], m.distance,
                        "" if m.jaccard is None else share3(m.jaccard), skipped(d),
                        "reference" if k == 0 else "copy", "", ""])
    if result.options.excerpt_containment is not None:
        ex = result.excerpts()
        for p, whole, c, s in zip(ex.part.tolist(), ex.whole.tolist(),
                                  ex.containment.tolist(), ex.similarity.tolist(), strict=True):
            d = result.documents[p]
            w.writerow(["", "no", cell(d.path), cell(d.name), cell(d.folder), d.size,
                        local_time(d.mtime), cell(d.format), cell(d.encoding),
                        percent(s)[:-1], "", "", skipped(d), "excerpt",
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


#: Names that take every path of escaping a report has: CSV quoting (commas, quotes, line
#: breaks) and formula guards, HTML specials, visible() escapes (CR, tab, bidi controls,
#: zero-width and invisible characters, a backslash before "n", undecodable bytes), spaces at
#: either end, characters beyond the BMP, Chinese, and a NUL (no such name on a disk: the
#: column-wide look-over falls back to one name at a time).
HOSTILE = [
    D("/data/a,b/com,ma.txt", "第一季度的销售情况良好。\n结束。", cluster=1, changed=5),
    D('/data/"q"/say "hi".txt', "第一季度的销售情况良好。\n结束。", cluster=1, changed=7),
    D("/data/line\nbreak\r.txt", "第一季度的销售情况良好。\n结束。", cluster=1),
    D("/data/ lead/trail .txt", "第一季度的销售情况良好。\n结束。", cluster=1, changed=2),
    D("/data/\u202eevil/inv\u200boice\u2066.txt", "The quick brown fox.", cluster=2),
    D("/data/back\\nslash/a\\\\b\\x.txt", "The quick brown fox!", cluster=2, changed=3),
    D("/data/\U0001f600/\U0001d11e\U000e0100.txt", "The quick brown fox.", cluster=2,
      changed=1),
    D("/data/<b>&'\"/<script>&amp;.txt", "The quick brown fox?", cluster=2, changed=4),
    D("/data/=cmd|' /C calc'!A0", "The quick brown fox.", cluster=2, changed=6),
    D("-2+3.txt", "The quick brown fox.", cluster=2, changed=2),
    D("/data/tab\there/\x1b]0;title\x07.txt", "一二三四五六七八九十", cluster=3),
    D("/data/报告/季度报告\ufeff.txt", "一二三四五六七八九十", cluster=3),
    D("/data/nul\0name.txt", "一二三四五六七八九十", cluster=3, changed=3),
    D("/data/gbk\udcb0/x\udce9.txt", "一二三四五六七八九十", cluster=3, changed=5),
    D("/data//double//slash.txt", "一二三四五六七八九十！", cluster=3, changed=2),
    # formulas alone in their group, without a cell that needs quoting beside them
    D("/data/f/=SUM(A1)", "Formula one two three.", cluster=4),
    D("/data/f/+1", "Formula one two three.", cluster=4, changed=2),
    D("/data/f/@x", "Formula one two three!", cluster=4, changed=3),
    D("=rel/-y", "Formula one two three?", cluster=4, changed=4),
]


def _hostile(threshold=0.4, mode=GroupMode.CONNECTED):
    import dataclasses

    result = make_result([*SPECS, *HOSTILE], floor=0.4)
    docs = list(result.documents)
    for k, note in ((1, "1 picture not compared"), (7, '2 "objects", 1 chart\u202e'),
                    (12, "1 picture not compared")):
        docs[k] = dataclasses.replace(docs[k], skipped=note)
    return dataclasses.replace(result, documents=tuple(docs)).regroup(threshold, mode)


def _csv_as_before_in(result, language: str) -> str:
    """:func:`_csv_as_before` with the header and the words of ``language``."""
    from neardup_core.messages import word

    english = _csv_as_before(result, language)
    if language == "en":
        return english
    import csv
    import io

    rows = list(csv.reader(io.StringIO(english, newline="")))
    words = {"yes": word("yes", language), "no": word("no", language),
             "reference": word("reference", language), "copy": word("copy", language),
             "excerpt": word("excerpt", language)}
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow([word(c, language) for c in rows[0]])
    for row in rows[1:]:
        row[1], row[13] = words[row[1]], words[row[13]]
        w.writerow(row)
    return out.getvalue()


def _html_as_before(result, language: str, **kw) -> str:
    """The HTML writer as it was, building every group as objects (the reference)."""
    import io
    import os

    from neardup_core.messages import render as render_message
    from neardup_core.messages import word
    from neardup_core.report.html_report import _e, _Html, _percent, _size
    from neardup_core.report.wording import weakest_label

    class AsBefore(_Html):
        def groups(self):
            groups = self.r.groups
            self.w(f'<h2 id="groups">{self.t("Groups")} ({len(groups):,})</h2>\n')
            if not groups:
                self.w(f'<p class="muted">{self.t("No near-duplicates at this threshold.")}'
                       '</p>\n')
            for g in groups:
                self.group(g)
            if self.diffs_left < 0:
                cut = self.say("Differences are shown for the first {count} files only.",
                               count=f"{self.max_diffs:,}")
                self.w(f'<p class="banner">{cut}</p>\n')

        def group(self, g):
            docs = self.r.documents
            ref = docs[g.reference]
            tag = (word("exact copies", self.language) if g.exact
                   else weakest_label(self.r.group_mode, g.weakest, self.language))
            head = self.say("Group {group} · {count} files · {label} · {name}", group=g.id,
                            count=len(g), label=_e(tag), name=_e(ref.name))
            self.w(f'<details class="group" open id="g{g.id}"><summary>{head}</summary>\n')
            heads = ("Name", "Folder", "Size", "Modified", "Format", "Encoding", "Similarity",
                     "Distance", "Jaccard")
            self.w('<table class="members"><tr>'
                   + "".join(f"<th>{self.t(h)}</th>" for h in heads) + "</tr>\n")
            for k, m in enumerate(g.members):
                d = docs[m.doc]
                badge = f'<span class="badge">{self.t("reference")}</span>' if k == 0 else ""
                if d.skipped:
                    badge += (f'<span class="skipped">'
                              f'{_e(render_message(d.skipped, self.language))}</span>')
                jac = "–" if m.jaccard is None else _percent(m.jaccard)
                folder, name = os.path.split(d.path)
                self.w(f'<tr class="{"ref" if k == 0 else "dup"}"><td class="name path">'
                       f'{_e(name)}{badge}</td><td class="path">{self.once(folder)}</td>'
                       f'<td class="num">{_size(d.size, self.bytes_word)}</td>'
                       f'<td>{self.clock.plain(d.mtime)}</td>'
                       f"<td>{self.once(d.format)}</td><td>{self.once(d.encoding or '–')}</td>"
                       f'<td class="num">{_percent(m.similarity)}</td>'
                       f'<td class="num">{m.distance}</td><td class="num">{_e(jac)}</td></tr>\n')
            self.w("</table>\n")
            ref_text = None
            fetched = False
            for m in g.members[1:]:
                d = docs[m.doc]
                label = self.say("Differences: {name} against the reference",
                                 name=_e(d.name))
                if d.text_hash == ref.text_hash:
                    same = self.say("{name}: same text as the reference after normalisation "
                                    "(spacing, width, punctuation).", name=_e(d.name))
                    self.w(f'<p class="muted">{same}</p>\n')
                    continue
                self.diffs_left -= 1
                if self.diffs_left < 0:
                    continue
                if not fetched:
                    ref_text, fetched = self.text_of(ref.path), True
                other = self.text_of(d.path)
                self.w(f'<details class="cmp"><summary>{label}</summary>\n')
                if ref_text is None or other is None:
                    self.unreadable(ref.name if ref_text is None else d.name)
                else:
                    self.diff(ref.name, d.name, ref_text, other)
                self.w("</details>\n")
            self.w("</details>\n")

    buf = io.StringIO()
    AsBefore(result, buf, kw.pop("text_of"), kw.pop("max_diff_chars", 200_000),
             kw.pop("max_diffs", 1_000), kw.pop("context", 3), language).write()
    return buf.getvalue()


@pytest.fixture(params=[2, 16_384], ids=["blocks of 2 lines", "one block"])
def block_lines(request, monkeypatch):
    """The writers' blocks: one for the whole report, or a couple of lines each (so groups
    fall on both sides of a block's bounds)."""
    import functools

    from neardup_core.report import columns, csv_report, html_report, json_report, text_report

    for module in (csv_report, html_report, json_report, text_report):
        monkeypatch.setattr(module, "blocks",
                            functools.partial(columns.blocks, lines=request.param))
    return request.param


@pytest.mark.parametrize("mode", list(GroupMode))
@pytest.mark.parametrize("threshold", [0.4, 0.7])
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_streamed_csv_with_every_kind_of_name(mode, threshold, language, block_lines):
    from neardup_core.report import write_csv

    result = _hostile(threshold, mode)
    assert len(result.group_table) >= 2
    assert render(write_csv, result, language=language) == _csv_as_before_in(result, language)


@pytest.mark.parametrize("mode", list(GroupMode))
@pytest.mark.parametrize("threshold", [0.4, 0.7])
def test_streamed_json_with_every_kind_of_name(mode, threshold, block_lines):
    """Names JSON must escape or mend, what was skipped, and times out of range (null) beside
    ordinary ones, in blocks split anywhere: still the bytes ``json.dump`` gives."""
    import dataclasses

    result = _hostile(threshold, mode)
    docs = list(result.documents)
    for k, mtime in ((0, 1e20), (3, float("nan")), (8, -1.5), (9, 253402300799.0)):
        docs[k] = dataclasses.replace(docs[k], mtime=mtime)
    docs[4] = dataclasses.replace(docs[4], encoding=None)
    result = dataclasses.replace(result, documents=tuple(docs)).regroup(threshold, mode)
    assert len(result.group_table) >= 2
    assert render(write_json, result) == _old(result)
    clean = dataclasses.replace(result, documents=tuple(
        dataclasses.replace(d, mtime=1_700_000_000.5) for d in docs)).regroup(threshold, mode)
    assert render(write_json, clean) == _old(clean)  # every time in range: quotes in the text


def _with_excerpts(result, seed: int, threshold: float):  # type: ignore[no-untyped-def]
    """``result`` with an excerpt per document (inside the document three on), scores on the
    edges of their rounding and a NaN among random ones, regrouped at ``threshold``."""
    import dataclasses

    import numpy as np

    from neardup_core.models import ExcerptTable

    n = len(result.documents)
    part = np.arange(n, dtype=np.int32)
    whole = ((part + 3) % n).astype(np.int32)
    rng = np.random.default_rng(seed)
    containment = rng.uniform(0.5, 1.0, n).astype(np.float32)
    similarity = rng.uniform(0.0, 1.0, n).astype(np.float32)
    containment[:5] = [1.0, 0.99996, 0.5, 0.61235, 0.99949]
    similarity[:5] = [np.nan, 0.99995, 1.0, 0.00004, 0.0]
    table = ExcerptTable(part, whole, containment, similarity)
    return dataclasses.replace(result, excerpt_table=table).regroup(threshold)


@pytest.mark.parametrize("threshold", [0.4, 0.7])
def test_streamed_json_excerpts_are_the_dumped_ones(threshold):
    """The ``excerpts`` section, put together a column at a time: hostile names, scores on
    the edges of their rounding, a NaN (``json.dumps`` writes ``NaN``), none at all."""
    import dataclasses

    from neardup_core.models import ExcerptTable

    result = _hostile(threshold)
    with_excerpts = _with_excerpts(result, 6, threshold)
    text = render(write_json, with_excerpts)
    assert text == _old(with_excerpts)
    assert len(json.loads(text)["excerpts"]) >= 4
    assert '"similarity": NaN' in text
    none = dataclasses.replace(result, excerpt_table=ExcerptTable.empty()).regroup(threshold)
    assert render(write_json, none) == _old(none)
    assert '"excerpts": []' in render(write_json, none)


@pytest.mark.parametrize("mode", list(GroupMode))
@pytest.mark.parametrize("threshold", [0.4, 0.7])
def test_streamed_text_with_every_kind_of_name(mode, threshold, block_lines):
    from neardup_core.report import write_text

    result = _hostile(threshold, mode)
    assert render(write_text, result).startswith(_text_as_before(result))


@pytest.mark.parametrize("mode", list(GroupMode))
@pytest.mark.parametrize("threshold", [0.4, 0.7])
@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("max_diffs", [0, 1, 3, 1000])
def test_streamed_html_is_what_it_was(mode, threshold, language, max_diffs, block_lines,
                                      monkeypatch):
    from _factories import texts

    from neardup_core.report import write_html

    monkeypatch.setattr(time, "strftime", lambda *a: "2024-01-02 03:04:05")  # the page's date
    result = _hostile(threshold, mode)
    text_of = texts([*SPECS, *HOSTILE[:-1]]).get  # the last one cannot be read again
    page = render(write_html, result, text_of=text_of, language=language, max_diffs=max_diffs)
    assert page == _html_as_before(result, language, text_of=text_of, max_diffs=max_diffs)
    assert "same text as the reference" in page or language != "en"
    cut = "Differences are shown for the first" in page
    assert cut if max_diffs == 0 and language == "en" else not (cut and max_diffs == 1000)


def test_distance_cells_are_the_distances_between_their_keys() -> None:
    """The distance column comes from a table of texts for what a uint8 holds; any other
    integer is worded one by one, the same way."""
    import numpy as np

    from neardup_core.report.json_report import _distance_cells

    def want(values: list[int]) -> list[str]:
        return [f',\n          "distance": {v},\n          "jaccard": ' for v in values]

    assert _distance_cells(np.array([0, 64, 255, 7], np.uint8)) == want([0, 64, 255, 7])
    assert _distance_cells(np.array([3, 300, -1], np.int64)) == want([3, 300, -1])
    assert _distance_cells(np.array([], np.uint8)) == []


@pytest.mark.parametrize("threshold", [0.4, 0.7])
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_streamed_csv_excerpts_are_what_they_were(threshold, language, monkeypatch):
    """The excerpt rows, put together a column at a time as the members' are: hostile names
    on both ends, scores on the edges of their rounding, a NaN, blocks of a couple of rows."""
    from neardup_core.report import csv_report, write_csv

    with_excerpts = _with_excerpts(_hostile(threshold), 7, threshold)
    want = _csv_as_before_in(with_excerpts, language)
    assert render(write_csv, with_excerpts, language=language) == want
    monkeypatch.setattr(csv_report, "EXCERPT_BLOCK", 2)
    assert render(write_csv, with_excerpts, language=language) == want
    assert want.count("\r\n") > len(with_excerpts.documents)  # the excerpts' rows are there


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_an_excerpt_with_one_passage_past_the_shown_ones_says_one(language, monkeypatch):
    """"1 more shared passages." read as a slip: one passage past the thirty shown is said in
    the singular, two or more in the plural."""
    from neardup_core.report import html_report, write_html

    result = _with_excerpts(_hostile(0.7), 6, 0.7)
    said = {"en": ("1 more shared passage.", "2 more shared passages."),
            "zh_CN": ("另有 1 处共同段落。", "另有 2 处共同段落。")}[language]
    for extra, want, other in ((1, said[0], said[1]), (2, said[1], said[0])):
        spans = [((k, k + 1), (k, k + 1)) for k in range(html_report._PASSAGES + extra)]
        monkeypatch.setattr(html_report, "shared_passages", lambda a, b, s=spans: s)
        page = render(write_html, result, text_of=lambda p: "x" * 80, language=language)
        assert want in page and other not in page
