"""The benchmark corpus builder writes the variants, encodings and truth it claims (no timing)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import docx
import numpy as np
import pytest

from benchmarks import corpus as C
from benchmarks import textmaker as T
from benchmarks import truth as tr

SIZE, SEED = 400, 3


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> C.Corpus:
    return C.build(tmp_path_factory.mktemp("bench") / "corpus", SIZE, SEED, log=lambda _m: None)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return C.generate(SIZE, SEED)[0]


def _decode(path: Path, encoding: str) -> str:
    if encoding == "docx":
        return "\n".join(p.text for p in docx.Document(str(path)).paragraphs)
    data = path.read_bytes()
    text = data.decode(encoding)
    return text.replace("\r\n", "\n")


def test_files_are_the_generated_texts_in_the_recorded_encoding(built: C.Corpus,
                                                                texts: list[str]) -> None:
    assert len(built.files) == SIZE == len(texts)
    for f, text in zip(built.files, texts, strict=True):
        p = built.docs / f.path
        assert p.stat().st_size == f.bytes
        assert _decode(p, f.encoding) == text, f.path
        if f.crlf and "\n" in text:
            assert "\r\n" in p.read_bytes().decode(f.encoding)


def test_mixed_encodings_and_formats(built: C.Corpus) -> None:
    enc = Counter(f.encoding for f in built.files)
    for e in ("utf-8", "utf-8-sig", "utf-16", "gbk", "gb18030", "big5", "cp1252", "docx"):
        assert enc[e] > 0, e
    assert any(f.crlf for f in built.files)
    assert any(f.encoding == "big5" and f.length == "long" for f in built.files)
    langs = Counter(f.lang for f in built.files)
    assert set(langs) == {"en", "zh", "zht"}
    assert {f.length for f in built.files} == {"long", "short"}
    # a non-UTF-8 legacy file really is not UTF-8
    gbk = next(f for f in built.files if f.encoding == "gbk")
    with pytest.raises(UnicodeDecodeError):
        (built.docs / gbk.path).read_bytes().decode("utf-8")


def test_every_edit_is_made_and_lands_where_it_should(built: C.Corpus) -> None:
    kids = [(i, f) for i, f in enumerate(built.files) if f.parent >= 0]
    assert {f.edit for _, f in kids} == set(C.EDITS)
    a = np.array([i for i, _ in kids])
    b = np.array([f.parent for _, f in kids])
    sim = built.truth.similarity(a, b)
    by: dict[str, list[float]] = {}
    for (_, f), s in zip(kids, sim.tolist(), strict=True):
        by.setdefault(f"{f.edit}/{f.length}", []).append(s)
        assert built.files[f.parent].family == f.family
    for e in ("copy/long", "copy/short", "punctuation/long", "rewrap/long"):
        assert min(by[e]) == pytest.approx(1.0), e  # normalisation undoes these
    for e in ("typos/long", "header/long", "delete/long", "insert/long", "swap/long",
              "combo/long"):
        assert np.median(by[e]) >= tr.MUST, e
    assert max(by["rewrite/long"]) < tr.MUST_NOT
    assert max(by["rewrite/short"]) < tr.MUST_NOT


def test_truth_is_exact_over_all_pairs(built: C.Corpus, texts: list[str]) -> None:
    h = tr.ShingleHasher(3)
    sets = [h(t) for t in texts]
    a, b, j = tr.brute_force_pairs(sets, tr.MUST)
    assert a.tolist() == built.truth.a.tolist()
    assert b.tolist() == built.truth.b.tolist()
    assert np.allclose(j, built.truth.jaccard)
    assert a.size > 50
    # on-demand similarity of arbitrary pairs agrees with a plain set computation
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, SIZE, 300), rng.integers(0, SIZE, 300)
    got = built.truth.similarity(x, y)
    want = [tr.exact_jaccard(sets[i], sets[k]) for i, k in zip(x.tolist(), y.tolist(),
                                                               strict=True)]
    assert np.allclose(got, want)


def test_truth_matches_neardups_definition(texts: list[str]) -> None:
    fingerprint = pytest.importorskip("neardup_core.fingerprint.fingerprinter")
    h = tr.ShingleHasher(3)
    rng = np.random.default_rng(1)
    pairs = [(i, i + 1) for i in range(0, 60, 2)]
    pairs += [tuple(rng.integers(0, len(texts), 2).tolist()) for _ in range(30)]
    samples = ["Ｆｕｌｌ　ｗｉｄｔｈ，ＡＢＣ１２３ naïve ＳＴＲＡßＥ", "一二。三四五，六", "word",
               "", "日本語テキスト と 한국어 mixed 漢字"]
    for i, k in pairs:
        want = fingerprint.normalized_jaccard(texts[i], texts[k], 3)
        assert tr.exact_jaccard(h(texts[i]), h(texts[k])) == pytest.approx(want)
    for s in samples:
        for t in samples:
            want = fingerprint.normalized_jaccard(s, t, 3)
            assert tr.exact_jaccard(h(s), h(t)) == pytest.approx(want), (s, t)


def test_prefix_filter_equals_brute_force_at_a_low_threshold(texts: list[str]) -> None:
    h = tr.ShingleHasher(3)
    sets = [h(t) for t in texts[:200]]
    m, sizes = tr._csr(sets)
    for t in (0.3, 0.45, 0.9):
        a, b, j = tr.similar_pairs(m, sizes, t)
        a2, b2, j2 = tr.brute_force_pairs(sets, t)
        assert (a.tolist(), b.tolist()) == (a2.tolist(), b2.tolist())
        assert np.allclose(j, j2)


def test_reload_and_reuse(built: C.Corpus) -> None:
    again = C.build(built.root, SIZE, SEED, log=lambda _m: None)
    first = built.docs / built.files[0].path
    assert again.info == built.info
    assert first.stat().st_mtime_ns == (again.docs / again.files[0].path).stat().st_mtime_ns
    assert again.truth.a.tolist() == built.truth.a.tolist()
    loaded = C.load(built.root)
    assert loaded.files == built.files
    assert set(loaded.index()) == {os.path.normpath(p) for p in built.paths}


def test_any_folder_gets_a_truth(tmp_path: Path) -> None:
    pytest.importorskip("neardup_core.extract")
    import random

    rng = random.Random(4)
    base = T.make_doc("zh", rng, 30)
    edited = T.delete_sentences(base, rng, 0.1).render()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_bytes(base.render().encode("gb18030"))
    (tmp_path / "docs" / "b.docx").write_bytes(C.docx_bytes(edited, rng))
    (tmp_path / "docs" / "c.txt").write_text(T.make_doc("en", rng, 30).render(),
                                             encoding="utf-16")
    c = C.from_folder(tmp_path / "docs", tmp_path / "work", log=lambda _m: None)
    assert sorted(f.path for f in c.files) == ["a.txt", "b.docx", "c.txt"]
    names = [c.files[i].path for i in (*c.truth.a.tolist(), *c.truth.b.tolist())]
    assert sorted(names) == ["a.txt", "b.docx"]


def test_edits_on_text() -> None:
    assert T.punctuation_width("a, b. 12", "en") == "a， b． １２"
    assert T.punctuation_width("甲，乙。", "zh") == "甲,乙."
    wrapped = T.rewrap("one two three four five six", "en", 9)
    assert wrapped.split("\n") == ["one two", "three", "four five", "six"]
    assert "\n" in T.rewrap("二〇二一年的报告2021年完成" * 5, "zh", 10)
    assert tr.units(T.rewrap("报告2021年完成" * 9, "zh", 10)) == tr.units("报告2021年完成" * 9)
