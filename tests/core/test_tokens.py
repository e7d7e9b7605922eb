"""Normalisation, units, shingles, segmentation and word features."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.hashing import segment_hash
from neardup_core.text.chinese import Segmenter, idf_of, idf_table
from neardup_core.text.features import word_features, word_features_many
from neardup_core.text.normalise import (
    LINE_BREAKS,
    PUNCTUATION,
    lines,
    normalize,
    normalize_codes,
    normalize_many,
)
from neardup_core.text.shingles import (
    analyse,
    analyse_codes,
    shingle_hash,
    shingle_hashes,
    shingle_hashes_many,
    shingle_set,
    unit_hashes,
    units,
)

REPO = Path(__file__).resolve().parents[2]

# A mix that exercises every path: ASCII, CJK, kana, hangul, full-width, punctuation NFKC keeps,
# expansions (…, ß, ㎡), combining marks, format characters, odd spaces, astral characters,
# controls, lone surrogates.
TRICKY = list("aZ09 _-.,'\"\t\n\r\x0b\x0c\x85\u2028\u00a0\u3000\x00\x01\x7f"
              "中文字的了是在我北京漢語ひらカナ한국어ｶﾞ"
              "ＡＢＣ１２３，。！？：；（）“”‘’「」『』《》〈〉【】—–～・、…‥"
              "ßſﬁĳ①⑩㎡℃ⅢÅé\u0301\u0308\u3099\u1161\u11a8"
              "\u200b\u200c\u200d\u2060\ufeff\u00ad\u202e"
              "\U00020000\U0001d400\U0001f600\U000e0041\ufa6c\udc80")
mixed_text = st.text(alphabet=st.sampled_from(TRICKY), max_size=60)
any_text = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40)


def reference_normalize(text: str) -> str:
    """normalize() written plainly: the whole text through unicodedata, then the rules."""
    t = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    t = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", t).casefold())
    out = []
    for ch in t:
        cat = unicodedata.category(ch)
        if cat == "Cf":
            continue
        if ch in LINE_BREAKS:
            out.append("\n")
        elif ch.isspace() or cat == "Cc":
            out.append(" ")
        else:
            out.append(PUNCTUATION.get(ch, ch))
    kept = (" ".join(w for w in line.split(" ") if w) for line in "".join(out).split("\n"))
    return "\n".join(line for line in kept if line)


# -- normalisation ----------------------------------------------------------------------------
@pytest.mark.parametrize(("raw", "want"), [
    ("ＡＢＣ１２３", "abc123"),
    ("中文\u3000空格", "中文 空格"),
    ("你好，世界！“引号”《书名》【注】、顿号。", '你好,世界!"引号"<书名>[注],顿号.'),
    ("你好,世界!", "你好,世界!"),
    ("Straße STRASSE", "strasse strasse"),
    ("zero\u200bwidth\u200c\u200djoin\ufeffbom soft\u00adhyphen", "zerowidthjoinbom softhyphen"),
    ("  tabs\tand\u00a0nbsp  \r\n\r\n\n  next line  \n", "tabs and nbsp\nnext line"),
    ("line\u2028sep\u2029para\x85nel\x0bvt", "line\nsep\npara\nnel\nvt"),
    ("等等……好吧", "等等......好吧"),
    ("ﬁ ① ⑩ ㎡ ℃ Ⅲ", "fi 1 10 m2 °c iii"),
    ("ｶﾞｷﾞ", "ガギ"),
    ("e\u0301 e\u200b\u0301", "é é"),
    ("\U0001d400\U0001d401 \U00020000", "ab \U00020000"),
    ("keep\udc80surrogate", "keep\udc80surrogate"),
    ("bell\x07nul\x00end", "bell nul end"),
    ("", ""),
    (" \n\t ", ""),
])
def test_normalize_examples(raw: str, want: str) -> None:
    assert normalize(raw) == want


@settings(max_examples=300, deadline=None)
@given(mixed_text)
def test_normalize_matches_reference(text: str) -> None:
    assert normalize(text) == reference_normalize(text)


@settings(max_examples=300, deadline=None)
@given(any_text)
def test_normalize_matches_reference_on_any_text(text: str) -> None:
    assert normalize(text) == reference_normalize(text)


@settings(max_examples=300, deadline=None)
@given(st.one_of(mixed_text, any_text))
def test_normalize_is_idempotent(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(mixed_text, any_text), max_size=6))
def test_normalize_many_matches_one_by_one(texts: list[str]) -> None:
    docs, codes = normalize_many(texts)
    assert docs == [normalize(t) for t in texts]
    joined = "\x00".join(docs)
    assert codes.tolist() == [ord(c) for c in joined]


def test_normalize_codes_dtype() -> None:
    assert normalize_codes("Plain ASCII")[1].dtype == np.uint8
    assert normalize_codes("ＡＢＣ")[1].dtype == np.uint8  # ASCII once normalised
    assert normalize_codes("中文")[1].dtype == np.uint16
    assert normalize_codes("\U00020000")[1].dtype == np.uint32


def test_lines() -> None:
    assert lines(normalize("  first \n\n second\r\nthird ")) == ["first", "second", "third"]
    assert lines("") == []


# -- units ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ("我爱北京天安门", ["我", "爱", "北", "京", "天", "安", "门"]),
    ("The quick brown fox.", ["the", "quick", "brown", "fox"]),
    ("我用Python写代码, version 3.12!", ["我", "用", "python", "写", "代", "码", "version", "3",
                                       "12"]),
    ("2024年3月15日", ["2024", "年", "3", "月", "15", "日"]),
    ("don't stop-me_now", ["don", "t", "stop", "me", "now"]),
    ("ひらがなとカタカナ", list("ひらがなとカタカナ")),
    ("한국어 단어", ["한", "국", "어", "단", "어"]),
    ("café naïve Ελληνικά русский", ["café", "naïve", "ελληνικά", "русский"]),
    ("a😀b ★ c", ["a", "b", "c"]),
    ("々〇", ["々", "〇"]),
    ("", []),
])
def test_units_examples(text: str, want: list[str]) -> None:
    assert units(normalize(text)) == want


@settings(max_examples=300, deadline=None)
@given(st.one_of(mixed_text, any_text))
def test_unit_hashes_match_reference(text: str) -> None:
    norm = normalize(text)
    assert unit_hashes(norm).tolist() == [segment_hash(u) for u in units(norm)]


# -- shingles ---------------------------------------------------------------------------------
def test_short_chinese_text_has_shingles() -> None:
    text = normalize("今天天气很好，我们一起去公园散步吧。")  # 16 units
    got = shingle_set(text, 3)
    assert len(got) == 14
    assert "今\x1f天\x1f天" in got
    assert shingle_set("你好", 3) == {"你\x1f好"}
    assert shingle_set("", 3) == set()
    assert shingle_set("中文 text", 1) == {"中", "文", "text"}


def test_shingles_cross_lines_not_punctuation_gaps() -> None:
    assert "end\x1fnext\x1fline" in shingle_set(normalize("the end.\nNext line"), 3)


@settings(max_examples=300, deadline=None)
@given(st.one_of(mixed_text, any_text), st.integers(1, 6))
def test_fast_shingles_equal_reference(text: str, n: int) -> None:
    norm = normalize(text)
    fast = set(shingle_hashes(unit_hashes(norm), n).tolist())
    assert fast == {shingle_hash(s) for s in shingle_set(norm, n)}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(mixed_text, any_text), min_size=1, max_size=6), st.integers(1, 5))
def test_batch_shingles_equal_per_document(texts: list[str], n: int) -> None:
    docs, codes = normalize_many(texts)
    got, doc = shingle_hashes_many(analyse_codes(codes, len(texts)), n)
    assert (np.diff(doc) >= 0).all()
    for i, d in enumerate(docs):
        assert got[doc == i].tolist() == shingle_hashes(unit_hashes(d), n).tolist()


def test_shingle_length_validated() -> None:
    with pytest.raises(ValueError):
        shingle_set("abc", 0)
    with pytest.raises(ValueError):
        shingle_hashes(np.zeros(3, np.uint64), 0)


# -- segmentation -----------------------------------------------------------------------------
SENTENCES = [
    "我们明天一起去图书馆复习功课",
    "这家小店的牛肉面味道非常地道",
    "研究人员发现海洋温度正在逐年上升",
    "他把自行车停在了学校门口的大树下",
    "春节前夕火车站里挤满了回家的旅客",
    "人工智能技术正在改变许多传统行业",
    "奶奶每天早上都会去公园里打太极拳",
    "这部电影的结局让很多观众感到意外",
    "市政府计划在城市东边新建一座体育馆",
    "小明的妈妈是一名经验丰富的外科医生",
    "由于暴雨影响部分航班被迫延误或取消",
    "我们应该节约用水保护好身边的环境",
    "她在北京大学读研究生专业是经济学",
    "周末的菜市场总是特别热闹",
    "张伟和李娜在上海开了一家咖啡馆",
]


@pytest.fixture(scope="module")
def rjieba_segmenter() -> Segmenter:
    pytest.importorskip("rjieba")
    return Segmenter(backend="rjieba")


@pytest.fixture(scope="module")
def jieba_segmenter() -> Segmenter:
    return Segmenter(backend="jieba")


def test_rjieba_gives_jiebas_tokens(rjieba_segmenter: Segmenter,
                                    jieba_segmenter: Segmenter) -> None:
    for s in [*SENTENCES, " ".join(SENTENCES), "。".join(SENTENCES)]:
        assert rjieba_segmenter.cut(s) == jieba_segmenter.cut(s)
    assert "".join(jieba_segmenter.cut(SENTENCES[0])) == SENTENCES[0]


def test_default_backend(rjieba_segmenter: Segmenter) -> None:
    assert Segmenter().backend == "rjieba"
    assert Segmenter().cut("") == []


def test_user_dict_uses_jieba(tmp_path: Path, jieba_segmenter: Segmenter) -> None:
    word = "量子猫咪"
    text = "我家有一只量子猫咪会编程"
    assert word not in jieba_segmenter.cut(text)
    d = tmp_path / "user.txt"
    d.write_text(f"{word} 10 n\n", encoding="utf-8")
    seg = Segmenter(user_dict=str(d))
    assert seg.backend == "jieba"
    assert word in seg.cut(text)


def test_segmenter_arguments_validated() -> None:
    with pytest.raises(ValueError):
        Segmenter(backend="pkuseg")
    with pytest.raises(ValueError):
        Segmenter(user_dict="x.txt", backend="rjieba")


def test_jieba_loads_quietly_with_read_only_home(tmp_path: Path) -> None:
    """A fresh process: jieba builds its cache in the temp folder and prints nothing."""
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o555)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    code = textwrap.dedent("""
        from neardup_core.text.chinese import Segmenter
        print("/".join(Segmenter(backend="jieba").cut("我们明天一起去图书馆")))
    """)
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp), "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120, check=True)
    assert proc.stderr == ""
    assert proc.stdout.strip() == "我们/明天/一起/去/图书馆"
    assert list(home.iterdir()) == []
    assert (tmp / "jieba.cache").is_file()


# -- word features ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def seg() -> Segmenter:
    return Segmenter()


def feature_weights(text: str, seg: Segmenter) -> dict[int, float]:
    h, w = word_features(normalize(text), seg)
    assert h.dtype == np.uint64 and w.dtype == np.float32
    assert len(set(h.tolist())) == h.shape[0]
    return dict(zip(h.tolist(), w.tolist(), strict=True))


def test_idf_table_is_jiebas() -> None:
    ids, values, median = idf_table()
    assert ids.shape == values.shape and ids.shape[0] > 200_000
    assert (np.diff(ids.astype(np.int64)) > 0).all()
    assert median == pytest.approx(11.9547675029)
    assert idf_of(np.array([segment_hash("的")], np.uint64))[0] == pytest.approx(0.88474202619)
    assert idf_of(np.array([segment_hash("没有这个词啊")], np.uint64))[0] == pytest.approx(
        median)


def test_common_words_weigh_less(seg: Segmenter) -> None:
    def weight_of(word: str, text: str) -> float:
        a = analyse(normalize(word))
        h, _ = word_features(a, seg)  # a word alone: its own feature
        return feature_weights(text, seg)[int(h[0])]

    zh = "经济的发展"
    assert weight_of("的", zh) < weight_of("经济", zh)
    en = "the economy grows"
    assert weight_of("the", en) < weight_of("economy", en)


def test_tf_is_sublinear(seg: Segmenter) -> None:
    once = feature_weights("harbour", seg)
    many = feature_weights("harbour " * 10, seg)
    (h, w1), = once.items()
    assert many[h] == pytest.approx(w1 * (1 + np.log(10)), rel=1e-6)


def test_bigrams_make_order_matter(seg: Segmenter) -> None:
    a = feature_weights("ships anchored bay gulls follow boats", seg)
    b = feature_weights("bay boats follow ships gulls anchored", seg)
    assert a.keys() != b.keys()
    assert len(a.keys() & b.keys()) == 6  # the same words, other bigrams


def test_empty_features(seg: Segmenter) -> None:
    h, w = word_features("", seg)
    assert h.shape == w.shape == (0,)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(mixed_text, st.sampled_from(SENTENCES)), min_size=1, max_size=5))
def test_batch_features_equal_per_document(texts: list[str]) -> None:
    seg = Segmenter()
    docs, codes = normalize_many(texts)
    doc, h, w = word_features_many(analyse_codes(codes, len(texts)), seg)
    for i, d in enumerate(docs):
        one_h, one_w = word_features(d, seg)
        assert dict(zip(h[doc == i].tolist(), w[doc == i].tolist(), strict=True)) == dict(
            zip(one_h.tolist(), one_w.tolist(), strict=True))


def test_idf_table_is_kept_in_the_cache_folder_and_reread(tmp_path, monkeypatch):
    from neardup_core.text import chinese

    if chinese._idf_path() is None:
        pytest.skip("jieba's idf file is not installed")
    monkeypatch.setattr(chinese, "_idf_cache_dir", lambda: tmp_path)
    chinese.idf_table.cache_clear()
    try:
        first = chinese.idf_table()
        [stored] = list(tmp_path.glob("idf-*.npz"))

        def no_parse(path):
            raise AssertionError("parsed again although the cache file is there")

        monkeypatch.setattr(chinese, "_parse_idf", no_parse)
        chinese.idf_table.cache_clear()
        again = chinese.idf_table()
        assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
        assert first[2] == again[2] and again[0].dtype == np.uint64
        # a damaged cache file is parsed again (and replaced), never trusted
        stored.write_bytes(b"not an npz file")
        monkeypatch.undo()
        monkeypatch.setattr(chinese, "_idf_cache_dir", lambda: tmp_path)
        chinese.idf_table.cache_clear()
        third = chinese.idf_table()
        assert np.array_equal(first[0], third[0])
        with np.load(stored) as z:
            assert np.array_equal(z["ids"], first[0])
    finally:
        chinese.idf_table.cache_clear()


def test_an_unwritable_cache_folder_only_costs_the_parse(tmp_path, monkeypatch):
    from neardup_core.text import chinese

    if chinese._idf_path() is None:
        pytest.skip("jieba's idf file is not installed")
    blocker = tmp_path / "file"
    blocker.write_bytes(b"x")
    monkeypatch.setattr(chinese, "_idf_cache_dir", lambda: blocker / "sub")
    chinese.idf_table.cache_clear()
    try:
        ids, values, median = chinese.idf_table()
        assert ids.size == values.size > 100_000 and median > 0
    finally:
        chinese.idf_table.cache_clear()
