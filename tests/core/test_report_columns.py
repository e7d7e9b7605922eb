"""The column-at-a-time wording of the reports (issue 22) gives the very words of the
per-value functions it stands for: numbers, times, sizes, shown names, CSV and HTML cells."""

from __future__ import annotations

import csv
import html
import io
import itertools
import math
import os
import random
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from neardup_core.messages import phrase
from neardup_core.report.columns import blocks, decimal_texts, interleave, pick, split_paths
from neardup_core.report.common import LocalClock, has_surrogates, iso_time, local_time
from neardup_core.report.csv_report import _cells, _guard, _quote, share3
from neardup_core.report.destination import display
from neardup_core.report.html_report import _size, _sizes, _template, html_all
from neardup_core.report.json_report import _score_text, score_texts
from neardup_core.report.wording import group_labels, percent, weakest_label
from neardup_core.visible import _ACTING, _CLASS, visible, visible_all

EDGES = [0.0, -0.0, 1.0, 0.25, 0.75, 0.125, 0.0005, 0.0015, 0.9995, 0.99951, 0.99949, 0.9996,
         0.99999, 1.5, 2.0, 1e-300, 5e-324, 1e20, 1e9, 2.0 ** 40 / 1000, 0.12345, 0.5, -1.0,
         -0.04, math.nan, math.inf, -math.inf]


def _values() -> list[float]:
    rng = random.Random(5)
    values = list(EDGES)
    values += [rng.random() for _ in range(20_000)]
    values += [float(np.float32(rng.random())) for _ in range(20_000)]  # scores are float32
    values += [k / 1000 for k in range(2001)] + [k / 2000 for k in range(4001)]
    values += [k / 128 for k in range(129)] + [k / 64 for k in range(65)]  # MinHash estimates
    return values


@pytest.mark.parametrize("name, digits, fmt, kw", [
    ("percent", 1, percent, {"scale": 100.0, "below_one_at_most": 999,
                             "dress": lambda t: t + "%"}),
    ("share3", 3, share3, {"below_one_at_most": 999}),
    ("2 digits", 2, lambda x: f"{x:.2f}", {}),
    ("0 digits", 0, lambda x: f"{x:.0f} KB", {"dress": lambda t: t + " KB"}),
    ("percent, no nan", 1, lambda x: "–" if x != x else percent(x),
     {"scale": 100.0, "below_one_at_most": 999, "dress": lambda t: t + "%", "nan": "–"}),
])
def test_decimal_texts_are_the_words_of_the_function(name, digits, fmt, kw):
    values = _values()
    for column in (values, [x * 1234.5678 for x in values], [x * 3e5 for x in values]):
        assert decimal_texts(np.array(column), digits, fmt, **kw) == list(map(fmt, column))


def test_decimal_texts_of_float32_scores_as_the_writers_pass_them():
    scores = np.random.default_rng(2).uniform(0, 1, 50_000).astype(np.float32)
    scores[:5] = [1.0, 0.0, np.float32(0.9995), np.float32(0.99951), np.nan]
    got = decimal_texts(scores, 1, percent, scale=100.0, below_one_at_most=999,
                        dress=lambda t: t + "%")
    assert got == [percent(x) for x in scores.tolist()]
    assert decimal_texts(scores[:0], 1, percent) == []


def test_score_texts_are_the_json_reports_words():
    """The JSON report's scores, a column at a time: ``repr(round_score(x))``, ``null``."""
    rng = np.random.default_rng(3)
    for scores in (rng.uniform(0, 1, 50_000).astype(np.float32), rng.uniform(0, 1, 50_000),
                   np.round(rng.uniform(0, 1, 50_000), 4), np.arange(129) / 128):
        scores[:9] = [1.0, 0.0, 0.99995, 0.99996, 0.5, 0.00005, 0.00015, np.nan, 0.1]
        assert score_texts(scores) == [_score_text(x) for x in scores.tolist()]
    edges = np.array([-0.0, -0.5, 1.5, np.inf, -np.inf, 1e-9, 0.12345, 0.99994999, 3e12])
    assert score_texts(np.array(_values())) == list(map(_score_text, _values()))
    assert score_texts(edges) == [_score_text(x) for x in edges.tolist()]
    assert score_texts(np.array([0.25, 1.0, 0.0, 0.1])) == ["0.25", "1.0", "0.0", "0.1"]


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=30))
def test_score_texts_of_any_floats(values):
    assert score_texts(np.array(values, dtype=np.float64)) == list(map(_score_text, values))


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=30))
def test_decimal_texts_of_any_floats(values):
    for digits in (0, 1, 3):
        def fmt(x: float, digits: int = digits) -> str:
            return f"{x:.{digits}f}"
        assert decimal_texts(np.array(values, dtype=np.float64), digits, fmt) == \
            list(map(fmt, values))


PATHS = ["/a/b", "/a", "a", "", "/", "//", "//x", "a//b", "a/b/", "///a//b", "x/",
         "/data/\\n/x", "/数据/报告/季度报告.txt", "/d/ lead.txt", "/d/trail .txt", "/d/a\\",
         "/d/\\/x", "/e/\U0001f600.txt"]


def test_split_paths_is_os_path_split():
    folders, names = split_paths(PATHS)
    assert list(zip(folders, names, strict=True)) == [os.path.split(p) for p in PATHS]
    assert split_paths([]) == ([], [])
    for i, a in enumerate(PATHS):  # each alone and in pairs: with and without a bare name
        for b in PATHS[i:]:
            folders, names = split_paths((a, b))
            assert list(zip(folders, names, strict=True)) == [os.path.split(a),
                                                              os.path.split(b)]


def test_interleave_and_pick():
    assert interleave([["a", "b"], [",", ","], ["1\n", "2\n"]]) == "a,1\nb,2\n"
    docs = ("x", "y", "z")
    assert list(pick(docs, np.array([2, 0]))) == ["z", "x"]
    assert list(pick(docs, np.array([1]))) == ["y"]
    assert list(pick(docs, np.array([], dtype=np.int64))) == []


def test_blocks_cover_every_group_once_at_group_bounds():
    offsets = np.array([0, 3, 4, 10, 11, 30, 32])
    for lines in (1, 2, 5, 16_384):
        runs = list(blocks(offsets, lines))
        assert runs[0][0] == 0 and runs[-1][1] == 6
        assert all(a[1] == b[0] and a[0] < a[1] for a, b in itertools.pairwise(runs))
    assert list(blocks(np.array([0]))) == []


def test_many_times_are_the_words_of_local_time():
    rng = random.Random(3)
    times = [0.0, -1.5, 1.9999999, 1e9 + 0.9999996, 1e9 + 0.4999995, 1_700_000_000.25,
             253402300799.0, 1e20, -62135596800.0, math.nan, math.inf, 1e15, -1e16]
    times += [rng.uniform(-3e9, 4e9) for _ in range(5000)]
    times += [1_700_000_000 + rng.uniform(0, 600) for _ in range(5000)]
    clock = LocalClock()
    assert clock.plain_many(times) == [local_time(t) for t in times]
    assert clock.plain_many(times[::-1]) == [local_time(t) for t in times[::-1]]  # cached
    assert LocalClock().plain_many([]) == []
    ints = [0, 1_700_000_000, 10 ** 20, -(10 ** 12), 10 ** 400]  # times kept as integers
    assert LocalClock().plain_many(ints) == [local_time(t) for t in ints]
    assert LocalClock().plain_many(ints[:-1]) == [local_time(t) for t in ints[:-1]]


def test_many_iso_times_are_the_words_of_iso_time():
    """The JSON report's "modified", worked out a block at a time as for the other reports."""
    rng = random.Random(4)
    times = [0.0, -1.5, 1.9999999, 1e9 + 0.9999996, 1e9 + 0.4999995, 1_700_000_000.25,
             253402300799.0, 1e20, -62135596800.0, math.nan, math.inf, 1e15, -1e16]
    times += [rng.uniform(-3e9, 4e9) for _ in range(5000)]
    times += [1_700_000_000 + rng.uniform(0, 600) for _ in range(5000)]
    clock = LocalClock()
    assert clock.iso_many(times) == [iso_time(t) for t in times]
    assert clock.iso_many(times[::-1]) == [iso_time(t) for t in times[::-1]]  # cached
    assert None in clock.iso_many(times)  # out of range: None, as iso_time says
    assert LocalClock().iso_many([]) == []
    ints = [0, 1_700_000_000, 10 ** 20, -(10 ** 12), 10 ** 400]
    assert LocalClock().iso_many(ints) == [iso_time(t) for t in ints]
    assert LocalClock().iso_many(ints[:-1]) == [iso_time(t) for t in ints[:-1]]


#: One of every kind of character visible() acts on, and names that need nothing.
NAMES = ["a", "a\\nb", "a\\\\b", "C:\\Users", "x\\", "\\", "x\u202ey", "报告", "报告\u200b",
         "caf\udce9", "ok", "\tt", "\x7f", "\x1b]0;t\x07", "\U0001d11e \U000e0100", "e\r",
         "line\nbreak", "", "a b ", " lead", "trail ", "nb\u00a0sp", "soft\u00adhyphen",
         "\u3164filler", "\u2800", "\ufeffbom", "tag\U000e0041", "\u2066iso\u2069",
         "\U0001f600\u200d\U0001f600", "=1+1", "-rm", "@x", "+1", 'q"uote', "com,ma", "<b>&'"]


def test_visible_all_is_visible_of_each():
    assert visible_all(NAMES) == [visible(s) for s in NAMES]
    assert visible_all(["a\0b", "c"]) == [visible("a\0b"), "c"]  # no separator: one by one
    assert visible_all([]) == []
    clean = [f"/数据/报告{i}/file {i}.txt" for i in range(100)]
    assert visible_all(clean) == clean


def test_visible_all_looks_for_every_character_visible_escapes():
    # the table visible_all looks a column over with is the class visible() escapes
    from neardup_core.visible import _acting_table

    table = _acting_table()
    rx = re.compile(f"[\t{_CLASS}]")
    every = "".join(map(chr, range(0x110000)))
    expected = np.zeros(0x110000, dtype=bool)
    expected[[m.start() for m in rx.finditer(every)]] = True
    assert (table == expected).all()
    # and every code point it does not flag comes back unchanged, alone or after a backslash
    quiet = np.flatnonzero(~table)
    sample = [chr(c) for c in quiet[:: max(1, len(quiet) // 5000)].tolist()]
    assert visible_all(sample) == sample
    assert not any(_ACTING.search(c) for c in sample)


@given(st.lists(st.text(), max_size=20))
def test_visible_all_of_any_texts(texts):
    assert visible_all(texts) == [visible(s) for s in texts]


def _csv_row(cells: list[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf).writerow(cells)
    return buf.getvalue()


@given(st.lists(st.text(alphabet=st.sampled_from(list('ab ,"\r\n\t=+-@\'\\')), max_size=8),
                min_size=2, max_size=5))
def test_cells_are_quoted_as_csv_writes_them(cells):
    assert ",".join(map(_quote, cells)) + "\r\n" == _csv_row(cells)


def test_cells_of_a_column_are_guarded_and_quoted():
    shown = [visible(s) for s in NAMES if s]
    expected = [_quote(_guard(s)) for s in shown]
    assert _cells(shown) == expected
    assert _csv_row([_guard(s) for s in shown]) == ",".join(expected) + "\r\n"
    clean = ["/data/a.txt", "b.txt", "报告.txt"]
    assert _cells(clean) == clean
    for bad in ("=x", "-x", "+x", "@x", 'a"b', "a,b"):
        assert _cells([*clean, bad])[-1] == _quote(_guard(bad))
        assert _cells([bad, *clean])[0] == _quote(_guard(bad))
    assert _cells(["a\0=b", "c"]) == ["a\0=b", "c"]  # a NUL (never shown): the exact way


def test_html_all_is_html_escape_of_each():
    shown = [visible(s) for s in NAMES]
    assert html_all(shown) == [html.escape(s, quote=True) for s in shown]
    assert html_all(["plain", "报告"]) == ["plain", "报告"]


def test_sizes_are_the_words_of_size():
    sizes = [0, 1, 1023, 1024, 1025, 1536, 10_239, 10_240, 1024 ** 2 - 1, 1024 ** 2,
             1024 ** 2 * 5 + 51, 1024 ** 3 - 1, 1024 ** 3, 1024 ** 4, 1024 ** 5 + 7, 2 ** 62, -5]
    sizes += random.Random(1).sample(range(10 ** 12), 3000)
    for word in ("bytes", "字节"):
        assert _sizes(sizes, word) == [f"{_size(n, word)}</td><td>" for n in sizes]


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("template", [
    "Group {group} · {count} files · {label} · {name}",
    "{name}: same text as the reference after normalisation (spacing, width, punctuation).",
    "a {b} {{c}} {d",
])
def test_templates_fill_as_phrase_does(language, template):
    from neardup_core.messages import word

    args = {"group": 7, "count": 3, "label": "weakest link 80%", "name": "{x} <b>", "b": 1}
    if template.startswith("a "):
        args["d"] = 2
    assert _template(word(template, language), *args).format(**args) == \
        phrase(template, language, **args)


@pytest.mark.parametrize("mode", ["connected", "strict"])
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_group_labels_are_weakest_label_of_each(mode, language):
    weakest = np.array([0.5, 0.8049, 0.806, 0.996, 1.0, 0.58, np.nan, np.inf, 0.0],
                       dtype=np.float32)
    exact = np.array([False, False, False, False, True, False, False, False, False])
    assert group_labels(weakest, exact, mode, language, exact_label="same") == [
        "same" if e else weakest_label(mode, w, language)
        for w, e in zip(weakest.tolist(), exact.tolist(), strict=True)]


@given(st.text(alphabet=st.sampled_from("ab/\u00e9\u6587\U0001d11e\ud800\udce9\udfff\ufffd"),
               max_size=12))
def test_has_surrogates_is_whether_display_changes_the_text(s: str) -> None:
    assert has_surrogates(s) == (display(s) != s)


def test_has_surrogates_ascii_and_not() -> None:
    assert not has_surrogates("")
    assert not has_surrogates("/data/plain.txt")
    assert not has_surrogates("/data/\u6587\u6863/caf\u00e9 \U0001d11e.txt")
    assert has_surrogates("/data/caf\udce9.txt")
    assert has_surrogates("/data/\u6587\udcb0")
    assert has_surrogates("\ud800")
