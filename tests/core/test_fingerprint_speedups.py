"""The fast paths of fingerprinting give exactly what the plain ones give.

Fingerprints are cached and compared across versions, so a speed-up may not move a single bit.
Each fast path is pinned here against a plain reference: runs of a batch against documents one
by one, the Latin-1 table path of normalisation, the sparse space collapse, blockwise segment
hashes, the idf hash table, the tf table, SimHash's vote tallies, MinHash's 32-bit keys.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.fingerprint import fingerprinter as fpmod
from neardup_core.fingerprint.fingerprinter import (
    DocFingerprint,
    Fingerprinter,
    FingerprintSettings,
)
from neardup_core.fingerprint.minhash import hash32
from neardup_core.fingerprint.simhash import WEIGHT_SCALE, simhash_grouped
from neardup_core.hashing import hash_segments, hash_sorted_segments, segment_hash
from neardup_core.text.chinese import idf_of_ids, idf_table
from neardup_core.text.features import _sublinear_tf
from neardup_core.text.normalise import (
    SEPARATOR,
    _collapse_spaces,
    _map_text,
    normalize,
    normalize_joined,
    normalize_many,
)

ZH = ("清晨的江南小镇笼罩在一层薄薄的雾气里，石板路上还留着昨夜细雨的痕迹。"
      "老街两旁的店铺陆续打开木门，卖豆浆油条的摊主早已忙碌起来。")
EN = ("The harbour town wakes slowly on winter mornings. Fishing boats return before "
      "sunrise, and the gulls follow them all the way to the quay.")

#: Texts that take every path of normalisation: Latin-1 (plain, and with characters that do
#: not map to one Latin-1 character), BMP, astral, combining marks, format characters, NUL.
MIXED = [
    ZH, EN, "", " ", "\n\n \t \n", "\x00", "a\x00b", "😀 emoji 👍🏽 and 中文 😀",
    "Ｆｕｌｌ　ｗｉｄｔｈ ＡＢＣ１２３。“引号”《书名》【括号】",
    "café naïve façade résumé Ærøskøbing", "Straße µ-metre ¼ cup soft\xadhyphen ¨ ´",
    "e\u0301 cafe\u0301 com\u0301bining", "zero\u200bwidth\u200cjoin\u200dhere",
    "𠀀𠀁𠀂 astral han 𠀃", "한국어 텍스트 입니다", "日本語のテキストです。カタカナ",
    "line1\r\nline2\rline3\u2028line4\x0bfive\x0csix", "\ud800 lone surrogate",
    "  leading and trailing spaces  \n  on lines \n\n\n", "ﬁ ligature … ellipsis",
    "3-1 a.com x_y 1,000.5 the of and", "字" * 3000, "word " * 4000,
    ZH * 30 + "\n" + EN * 30,
]


def records(fps: list[DocFingerprint]) -> list[tuple]:
    return [(f.simhash, f.minhash.tobytes(), f.text_hash, f.chars, f.units,
             f.line_hashes.tobytes()) for f in fps]


@pytest.fixture(scope="module")
def fp() -> Fingerprinter:
    return Fingerprinter()


@pytest.mark.parametrize("batch_bytes", [1, 300, 5000, fpmod.BATCH_BYTES])
def test_runs_of_a_batch_equal_documents_one_by_one(fp: Fingerprinter,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     batch_bytes: int) -> None:
    one_by_one = [fp.fingerprint(t) for t in MIXED]
    monkeypatch.setattr(fpmod, "BATCH_BYTES", batch_bytes)
    assert records(fp.fingerprint_many(MIXED)) == records(one_by_one)
    assert records(fp.fingerprint_many(MIXED[::-1])) == records(one_by_one[::-1])


def test_very_long_document_in_a_mixed_batch(fp: Fingerprinter,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    long = (ZH + "\n" + EN + "\n") * 200
    batch = [EN, long, "", ZH, long + " tail", "😀"]
    whole = [fp.fingerprint(t) for t in batch]
    # the long ones now go piece by piece; the rest in runs of a few documents
    monkeypatch.setattr(fpmod, "LARGE_CHARS", 5000)
    monkeypatch.setattr(fpmod, "PIECE_CHARS", 1500)
    monkeypatch.setattr(fpmod, "BATCH_BYTES", 400)
    assert records(fp.fingerprint_many(batch)) == records(whole)


def test_boilerplate_dropping_in_runs(fp: Fingerprinter, monkeypatch: pytest.MonkeyPatch
                                      ) -> None:
    shared = "This message is confidential and meant for its addressee only."
    texts = [f"{shared}\n{EN} {i}\n{ZH}" for i in range(6)] + [shared, "", EN]
    drop = fpmod.hash64_lines(normalize(shared))
    one_by_one = [fp.fingerprint(t, drop) for t in texts]
    monkeypatch.setattr(fpmod, "BATCH_BYTES", 700)
    assert records(fp.fingerprint_many(texts, drop)) == records(one_by_one)


def test_other_settings_in_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    for s in (FingerprintSettings(shingle=1), FingerprintSettings(shingle=8, num_perm=64),
              FingerprintSettings(minhash=False)):
        fper = Fingerprinter(s)
        one_by_one = [fper.fingerprint(t) for t in MIXED]
        with monkeypatch.context() as m:
            m.setattr(fpmod, "BATCH_BYTES", 2000)
            assert records(fper.fingerprint_many(MIXED)) == records(one_by_one)


piece = st.one_of(
    st.text(alphabet="abc xyz\n\t.,", max_size=40),
    st.text(alphabet="中文字词语测试的了是。，、 \n", max_size=40),
    st.text(alphabet="éßµ¼\xadÆø äöü ÀÉ", max_size=20),
    st.sampled_from(["😀", "𠀀", "e\u0301", "\u200b", "\x00", "ﬁ…", "한국", "ＡＢＣ", "\ud800"]),
    st.text(max_size=20),
)
docs_strategy = st.lists(st.lists(piece, max_size=6).map("".join), min_size=1, max_size=8)
_FP = Fingerprinter()


@settings(max_examples=30, deadline=None)
@given(docs_strategy, st.integers(1, 400))
def test_fingerprint_many_equals_one_by_one(texts: list[str], batch_bytes: int) -> None:
    fper = _FP
    one_by_one = [fper.fingerprint(t) for t in texts]
    old = fpmod.BATCH_BYTES
    fpmod.BATCH_BYTES = batch_bytes  # hypothesis and function-scoped fixtures do not mix
    try:
        assert records(fper.fingerprint_many(texts)) == records(one_by_one)
    finally:
        fpmod.BATCH_BYTES = old


# -- normalisation ---------------------------------------------------------------------------
def collapse_reference(codes: np.ndarray) -> np.ndarray:
    """The rule of _collapse_spaces, written on strings."""
    text = "".join(map(chr, codes.tolist()))

    def one(doc: str) -> str:
        doc = re.sub(r"[ \n]+", lambda m: "\n" if "\n" in m.group() else " ", doc)
        return doc.strip(" \n")

    return np.array([ord(c) for c in "\0".join(map(one, text.split("\0")))], dtype=np.int64)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0, 10, 32, 32, 32, 10, 97, 98, 0x4E00]), max_size=60),
       st.sampled_from([np.uint16, np.uint32]))
def test_collapse_spaces_matches_reference(codes: list[int], dtype: type) -> None:
    arr = np.array(codes, dtype=dtype)
    got = _collapse_spaces(arr.copy())
    assert got.tolist() == collapse_reference(arr).tolist()


def test_collapse_spaces_long_runs() -> None:
    # runs longer than the few steps walked back one at a time
    text = ("a" + " " * 50 + "\n" + " " * 7 + "b\0" + " " * 20 + "c" + " " * 30 + "\0 \n  d"
            + " " * 9)
    arr = np.frombuffer(text.encode("ascii"), dtype=np.uint8).copy()
    assert _collapse_spaces(arr.copy()).tolist() == collapse_reference(arr).tolist()


def general_map(text: str, batch: bool) -> np.ndarray:
    """_map_text through the general (UTF-32) path: a line of its own with an astral
    character forces it and changes nothing before it."""
    out = _map_text(text + "\n\U00020000", batch)
    assert out[-2:].tolist() == [10, 0x20000]
    return out[:-2]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=255), max_size=40), st.booleans())
def test_latin1_table_path_matches_the_general_path(text: str, batch: bool) -> None:
    if batch:
        text = text.replace("\x00", "\x01")
    fast = _map_text(text, batch)
    assert fast.tolist() == general_map(text, batch).tolist()


@pytest.mark.parametrize("text", ["Café NAÏVE ÀÉÎÕÜ ªº ² x", "½ µ Straße soft\xadhyphen ¨"])
def test_latin1_text_normalises_as_before(text: str) -> None:
    # the first maps character by character within Latin-1; the second does not (1/2, the
    # Greek mu, ss, a deleted soft hyphen, a diaeresis that becomes a combining mark)
    assert normalize(text) == normalize(text + "\n\U00020000")[:-2]
    assert normalize("Café NAÏVE") == "café naïve"


@settings(max_examples=60, deadline=None)
@given(docs_strategy)
def test_normalize_joined_is_the_documents_joined(texts: list[str]) -> None:
    docs, codes, joined = normalize_joined(texts)
    assert joined == SEPARATOR.join(docs)
    docs2, codes2 = normalize_many(texts)
    assert docs2 == docs and np.array_equal(codes2, codes)
    if codes.dtype == np.uint8:
        assert joined.encode("latin-1") == codes.tobytes()


# -- hashing ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,top", [(np.uint8, 256), (np.uint16, 65536),
                                       (np.uint32, 0x30000)])
def test_sorted_segments_match_the_plain_hash(dtype: type, top: int) -> None:
    rng = np.random.default_rng(7)
    for n in (1, 10, 70_000, 300_000):
        codes = rng.integers(0, top, n).astype(dtype)
        cuts = np.unique(np.concatenate([[0, n], rng.integers(0, n + 1, max(1, n // 50))]))
        if n == 300_000:  # a few segments spanning several 2**16 blocks
            cuts = np.unique(np.concatenate([cuts[cuts < 1000], [150_000, 290_000, n]]))
        starts, ends = cuts[:-1].astype(np.int64), cuts[1:].astype(np.int64)
        ends = np.maximum(starts + 1, ends - rng.integers(0, 2, ends.shape[0]))  # gaps
        assert np.array_equal(hash_sorted_segments(codes, starts, ends),
                              hash_segments(codes, starts, ends))
    text = "a" * 70_000 + "中文" + "b" * 3
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    got = hash_sorted_segments(codes, np.array([0, 69_999, 70_002]), np.array([70_001, 70_002,
                                                                               70_005]))
    assert got.tolist() == [segment_hash(text[0:70_001]), segment_hash(text[69_999:70_002]),
                            segment_hash(text[70_002:70_005])]


def test_hash32_is_the_high_half() -> None:
    x = np.random.default_rng(1).integers(0, 2**64 - 1, 1000, dtype=np.uint64)
    want = (x >> np.uint64(32)).astype(np.uint32)
    assert np.array_equal(hash32(x), want)
    assert np.array_equal(hash32(x[::3]), want[::3])
    assert hash32(np.empty(0, np.uint64)).shape == (0,)


# -- feature weights ---------------------------------------------------------------------------
def test_idf_hash_table_matches_binary_search() -> None:
    keys, values, median = idf_table()
    rng = np.random.default_rng(3)
    ids = np.concatenate([keys, keys + np.uint64(1), rng.integers(0, 2**40, 50_000,
                                                                    dtype=np.uint64)])
    rng.shuffle(ids)
    pos = np.minimum(np.searchsorted(keys, ids), keys.shape[0] - 1)
    found = keys[pos] == ids
    want = np.where(found, values[pos], np.float32(median)).astype(np.float32)
    got = idf_of_ids(ids)
    assert got.dtype == np.float32
    assert np.array_equal(got, want)
    assert idf_of_ids(np.empty(0, np.uint64)).shape == (0,)


def test_tf_table_gives_the_same_numbers_as_log() -> None:
    rng = np.random.default_rng(5)
    counts = rng.integers(1, 10_000, 20_000)
    direct = 1.0 + np.log(counts.astype(np.float64))
    assert np.array_equal(_sublinear_tf(counts), direct)  # some beyond the table
    small = counts[counts < 4096]
    assert np.array_equal(_sublinear_tf(small), 1.0 + np.log(small.astype(np.float64)))


def simhash_reference(h: np.ndarray, w: np.ndarray) -> int:
    """The SimHash rule on one group, bit by bit."""
    if not h.shape[0]:
        return 0
    top = float(w.max())
    q = np.rint(w * (WEIGHT_SCALE / top)) if top > 0 else np.zeros_like(w)
    bits = ((h[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    votes = (bits * q[:, None]).sum(axis=0)
    return sum(1 << i for i in range(64) if 2.0 * votes[i] > q.sum())


@pytest.mark.parametrize("ngroups", [1, 7, 5000])
def test_simhash_grouped_matches_the_rule(ngroups: int) -> None:
    rng = np.random.default_rng(ngroups)
    n = 20_000
    h = rng.integers(0, 2**64 - 1, n, dtype=np.uint64)
    w = rng.random(n) * rng.choice([0.0, 1.0, 1e-9, 30.0], n)
    g = rng.integers(0, ngroups, n)  # in no order; some groups empty for 5000
    got = simhash_grouped(h, w, g, ngroups)
    for d in range(0, ngroups, max(1, ngroups // 40)):
        assert int(got[d]) == simhash_reference(h[g == d], w[g == d])
