"""The fast Chinese paths of fingerprinting against plain references.

Pinned here: the segmenter's runs cut from the batch array and their tokens' lengths, hashes
and documents (:func:`chinese_tokens`, :func:`chinese_words`); the bigram keys counted without
filtering (:func:`_bigram_keys`, :func:`_counted_keys`); MinHash keys with straddling windows
overwritten instead of dropped (:func:`shingle_keys_many`); and whole fingerprints against a
SimHash and a MinHash computed one word and one shingle at a time from :func:`units`,
:func:`shingle_set` and the segmenter's own tokens.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest

from neardup_core.fingerprint.fingerprinter import Fingerprinter, FingerprintSettings
from neardup_core.fingerprint.minhash import MinHasher
from neardup_core.fingerprint.simhash import simhash
from neardup_core.hashing import combine_hashes, segment_hash, splitmix64
from neardup_core.text import chinese
from neardup_core.text import features as tk
from neardup_core.text.chinese import Segmenter, chinese_tokens, chinese_words
from neardup_core.text.features import ENGLISH_STOP_WORDS, FEATURE_KINDS, feature_weights
from neardup_core.text.normalise import CJK, WORD, char_class, normalize, normalize_many
from neardup_core.text.shingles import (
    Analysis,
    analyse_codes,
    shingle_hash,
    shingle_hashes_many,
    shingle_keys_many,
    shingle_set,
    units,
)

HAN = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也"
WORDS = ["the", "of", "and", "harbour", "boats", "quay", "3-1", "a.com", "x_y", "1,000.5",
         "Straße", "café", "ＡＢＣ１２３"]
OTHER = ["，", "。", "、", "“", "”", "《", "》", " ", "\n", "\t", "!", "?", "...", "…", "😀",
         "ひらがな", "カタカナ", "한국어", "𠀀", "𠀁𪚥", "\u200b", "e\u0301", "ﬁ", "\x00"]


def made_up(rng: random.Random, pieces: int) -> str:
    """Chinese-looking text with words, punctuation and other scripts mixed in."""
    out = []
    for _ in range(pieces):
        r = rng.random()
        if r < 0.55:
            out.append("".join(rng.choice(HAN) for _ in range(rng.randint(1, 12))))
        elif r < 0.75:
            out.append(rng.choice(WORDS) + rng.choice(" \n"))
        else:
            out.append(rng.choice(OTHER))
    return "".join(out)


EDGE = [
    "", " ", "\n\n", "，。、！？“”", "!!! ... ,,, ---", "中", "中文", "𠀀", "𠀀𠀁𠀂", "𠀀中𠀁文",
    "中" * 70_000, "中文字" * 30_000 + "。end", "a" * 300 + "中" * 300, "한국어 텍스트 입니다",
    "日本語のテキストです。カタカナ", "混合 mixed 中英文 text with 数字 123 and ＡＢＣ。",
    "the of and 的 了 是", "你好 world 😀 emoji 👍🏽 test",
]


@pytest.fixture(scope="module")
def seg() -> Segmenter:
    return Segmenter()


def cjk_runs(text: str) -> list[tuple[int, str]]:
    """(start, run) of each run of CJK characters, one character at a time."""
    out = []
    i = 0
    while i < len(text):
        if char_class(text[i]) != CJK:
            i += 1
            continue
        j = i
        while j < len(text) and char_class(text[j]) == CJK:
            j += 1
        out.append((i, text[i:j]))
        i = j
    return out


def plain_chinese_tokens(docs: list[str], seg: Segmenter) -> tuple[list[int], list[int],
                                                                   list[int], list[int]]:
    """(hash, length, document, position in the NUL-joined documents) of each token, from
    the segmenter cutting each CJK run of each normalised document on its own."""
    hashes, lengths, where, positions = [], [], [], []
    offset = 0
    for d, text in enumerate(docs):
        for at, run in cjk_runs(text):
            for token in seg.cut(run):
                hashes.append(segment_hash(token))
                lengths.append(len(token))
                where.append(d)
                positions.append(offset + at)
                at += len(token)
        offset += len(text) + 1
    return hashes, lengths, where, positions


def batch_analysis(texts: list[str]) -> tuple[list[str], Analysis]:
    docs, codes = normalize_many(texts)
    return docs, analyse_codes(codes, len(docs))


@pytest.mark.parametrize("seed", range(6))
def test_chinese_tokens_equal_each_run_cut_alone(seg: Segmenter, seed: int) -> None:
    rng = random.Random(seed)
    texts = [made_up(rng, rng.randint(0, 80)) for _ in range(rng.randint(1, 12))]
    if seed % 2:
        texts = ["", *texts, "no cjk here", ""]
    docs, a = batch_analysis(texts)
    h, length, where, pos = plain_chinese_tokens(docs, seg)
    got_h, got_len, got_doc = chinese_tokens(a, seg)
    assert got_h.tolist() == h
    assert got_len.tolist() == length
    assert got_doc.tolist() == where
    w_h, w_len, w_pos = chinese_words(a, seg)
    assert (w_h.tolist(), w_len.tolist(), w_pos.tolist()) == (h, length, pos)
    assert w_len.dtype == np.int64 and w_pos.dtype == np.int64


@pytest.mark.parametrize("text", EDGE, ids=range(len(EDGE)))
def test_chinese_tokens_edge_cases(seg: Segmenter, text: str) -> None:
    docs, a = batch_analysis([text])
    h, length, where, _ = plain_chinese_tokens(docs, seg)
    got_h, got_len, got_doc = chinese_tokens(a, seg)
    assert (got_h.tolist(), got_len.tolist(), got_doc.tolist()) == (h, length, where)


@pytest.mark.parametrize("piece", [1, 2, 7, 50])
def test_segmenter_pieces_change_nothing(seg: Segmenter, monkeypatch: pytest.MonkeyPatch,
                                         piece: int) -> None:
    rng = random.Random(piece)
    texts = [made_up(rng, 60) for _ in range(5)]
    _, a = batch_analysis(texts)
    want = chinese_tokens(a, seg)
    calls = []

    class Counting(Segmenter):
        def cut(self, text: str) -> list[str]:
            calls.append(text)
            return super().cut(text)

    monkeypatch.setattr(chinese, "SEGMENT_PIECE", piece)
    got = chinese_tokens(a, Counting())
    assert len(calls) > 1
    assert all(c.endswith(" ") for c in calls[:-1])  # pieces end at the gap after a run
    for x, y in zip(want, got, strict=True):
        assert x.tolist() == y.tolist()


class WholeRuns(Segmenter):
    """Every run is one token, however long: exercises lengths of 256 and more."""

    def cut(self, text: str) -> list[str]:
        out: list[str] = []
        for i, run in enumerate(text.split(" ")):
            if i:
                out.append(" ")
            if run:
                out.append(run)
        return out


def test_tokens_of_256_characters_or_more(monkeypatch: pytest.MonkeyPatch) -> None:
    seg = WholeRuns()
    texts = ["中" * 300 + "，" + "文" * 255 + "。" + "字" * 256, "短的", "字" * 1000]
    docs, a = batch_analysis(texts)
    h, length, where, _ = plain_chinese_tokens(docs, seg)
    assert max(length) == 1000
    got_h, got_len, got_doc = chinese_tokens(a, seg)
    assert (got_h.tolist(), got_len.tolist(), got_doc.tolist()) == (h, length, where)
    monkeypatch.setattr(chinese, "SEGMENT_PIECE", 10)  # one piece with long tokens, others without
    got_h, got_len, got_doc = chinese_tokens(a, seg)
    assert (got_h.tolist(), got_len.tolist(), got_doc.tolist()) == (h, length, where)


def test_tokens_that_do_not_cover_the_text_are_refused() -> None:
    class Lossy(Segmenter):
        def cut(self, text: str) -> list[str]:
            return [text[:-1]] if len(text) > 1 else [text]

    _, a = batch_analysis(["中文字"])
    with pytest.raises(ValueError, match="cover the text"):
        chinese_tokens(a, Lossy())


# -- bigram keys and counts -----------------------------------------------------------------------
def test_bigram_keys_count_as_pairs_do() -> None:
    rng = np.random.default_rng(3)
    for docs in (1, 2, 5, 40):
        for n in (0, 1, 2, 3, 50, 400):
            doc = np.sort(rng.integers(0, docs, n)).astype(np.int64)
            if n and docs > 2:
                doc[doc == 1] = 2  # an empty document in the middle
            hashes = rng.integers(0, 2**63, n, dtype=np.uint64)
            hashes[::3] = hashes[0] if n else 0  # repeats, so counts above 1
            want = tk._counted(*reversed(tk.pairs(doc, hashes)))
            out = np.empty(max(0, n - 1), dtype=np.uint64)
            crossing = tk._bigram_keys(doc, hashes, docs, out)
            got = tk._counted_keys(out, crossing)
            for x, y in zip(want, got, strict=True):
                assert x.tolist() == y.tolist()


def test_counted_keys_drop_by_number() -> None:
    key = np.array([5, tk._NO_KEY, 7, tk._NO_KEY, 5, tk._NO_KEY], dtype=np.uint64)
    doc, ids, counts = tk._counted_keys(key.copy(), 2)  # one of the three is a real key
    assert ids.tolist() == [5, 7, int(tk._ID_MASK)]
    assert counts.tolist() == [2, 1, 1]
    assert doc.tolist() == [0, 0, (1 << 64) - 1 >> tk.FEATURE_BITS]


# -- MinHash keys ---------------------------------------------------------------------------------
def per_document_sets(win: np.ndarray, doc: np.ndarray, docs: int) -> list[set[int]]:
    out: list[set[int]] = [set() for _ in range(docs)]
    for h, d in zip(win.tolist(), np.asarray(doc).tolist(), strict=True):
        out[d].add(h)
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_shingle_keys_have_each_documents_shingle_set(n: int) -> None:
    rng = random.Random(n)
    for trial in range(12):
        # documents of 0 to n + 2 units, short ones at either end included
        texts = [" ".join(rng.choice("中文字词语ab") for _ in range(rng.randint(0, n + 2)))
                 for _ in range(rng.randint(2, 9))]
        if trial % 3 == 0:
            texts.append("x")  # a short document last: no window starts in it
        docs, a = batch_analysis(texts)
        want = per_document_sets(*shingle_hashes_many(a, n), len(docs))
        win, doc = shingle_keys_many(a, n)
        assert np.all(np.diff(doc) >= 0)
        assert per_document_sets(win, doc, len(docs)) == want
        bounds = np.searchsorted(a.unit_docs, np.arange(len(docs) + 1))
        win2, doc2 = shingle_keys_many(a, n, bounds)
        assert win2.tolist() == win.tolist() and np.asarray(doc2).tolist() == doc.tolist()
        assert want == [{shingle_hash(s) for s in shingle_set(d, n)} for d in docs]


# -- whole fingerprints against plain references --------------------------------------------
def plain_simhash(text: str, seg: Segmenter) -> int:
    """The documented weighted SimHash, one word at a time."""
    norm = normalize(text)
    zh = [t for _, run in cjk_runs(norm) for t in seg.cut(run)]
    other = [u for u in units(norm) if char_class(u[0]) == WORD]
    zh_content = [segment_hash(t) for t in zh if len(t) > 1]
    other_content = [segment_hash(u) for u in other if u not in ENGLISH_STOP_WORDS]
    bigrams = [combine_hashes(p) for seq in (zh_content, other_content)
               for p in itertools.pairwise(seq)]
    shift = 64 - tk.FEATURE_BITS
    ids = {"zh": [segment_hash(t) >> shift for t in zh],
           "other": [segment_hash(u) >> shift for u in other],
           "bigram": [b >> shift for b in bigrams]}
    hashes, weights = [], []
    for kind in FEATURE_KINDS:
        counted = sorted(Counter(ids[kind]).items())
        if not counted:
            continue
        f = np.array([i for i, _ in counted], dtype=np.uint64)
        c = np.array([k for _, k in counted], dtype=np.int64)
        hashes.append(splitmix64(f))
        weights.append(feature_weights(kind, f, c))
    if not hashes:
        return 0
    return simhash(np.concatenate(hashes), np.concatenate(weights).astype(np.float32))


def plain_minhash(text: str, settings: FingerprintSettings) -> np.ndarray:
    keys = [shingle_hash(s) for s in shingle_set(normalize(text), settings.shingle)]
    return MinHasher(settings.num_perm, settings.seed).signature(np.array(keys, np.uint64))


@pytest.mark.parametrize("settings", [FingerprintSettings(), FingerprintSettings(shingle=1),
                                      FingerprintSettings(shingle=8, num_perm=64, seed=3)],
                         ids=["default", "shingle1", "shingle8"])
def test_fingerprints_equal_plain_references(seg: Segmenter,
                                             settings: FingerprintSettings) -> None:
    rng = random.Random(11)
    texts = [made_up(rng, rng.randint(0, 60)) for _ in range(14)]
    texts += [t for t in EDGE if len(t) < 2000]
    fper = Fingerprinter(settings, segmenter=seg)
    batch = fper.fingerprint_many(texts)
    for text, fp in zip(texts, batch, strict=True):
        assert fp.simhash == plain_simhash(text, seg), text[:40]
        assert fp.minhash.tolist() == plain_minhash(text, settings).tolist(), text[:40]
        assert fp.units == len(units(normalize(text)))


def test_long_single_run_fingerprint(seg: Segmenter) -> None:
    text = "中文字词语测试" * 12_000  # one run of 84,000 characters: several segmenter pieces
    fper = Fingerprinter(segmenter=seg)
    fp = fper.fingerprint(text)
    assert fp.simhash == plain_simhash(text, seg)
    assert fp.minhash.tolist() == plain_minhash(text, fper.settings).tolist()
    assert fper.fingerprint_many(["", text, "中"])[1] == fp
