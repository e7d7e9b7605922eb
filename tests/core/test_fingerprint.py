"""Document fingerprints: what they hold, boilerplate, batches, estimates, reproducibility."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from neardup_core.fingerprint.fingerprinter import (
    DocFingerprint,
    Fingerprinter,
    FingerprintSettings,
    fingerprint_text,
    fingerprint_texts,
    normalized_jaccard,
)
from neardup_core.fingerprint.minhash import jaccard, standard_error
from neardup_core.fingerprint.simhash import hamming_distance
from neardup_core.hashing import hash64, hash128_hex
from neardup_core.models import Method, ScanOptions
from neardup_core.pairs.scoring import simhash_similarity
from neardup_core.text.chinese import Segmenter
from neardup_core.text.normalise import normalize
from neardup_core.text.shingles import units

REPO = Path(__file__).resolve().parents[2]

ZH = (
    "清晨的江南小镇笼罩在一层薄薄的雾气里，石板路上还留着昨夜细雨的痕迹。"
    "老街两旁的店铺陆续打开木门，卖豆浆油条的摊主早已忙碌起来，蒸笼里冒出的白气和雾混在一起。"
    "镇上的孩子背着书包穿过拱桥，桥下的乌篷船缓缓划过，船夫哼着一段听不清歌词的小调。"
    "到了午后，游客渐渐多了，茶馆里坐满了人，说书先生拍响醒木，讲起了三国里赤壁之战的故事。"
    "傍晚时分，夕阳把河面染成金色，炊烟从一户户人家的屋顶升起，整个小镇又慢慢安静下来。"
)
ZH_REWRITE = (
    "天刚亮的时候，江南水乡的小镇还被雾笼着，路面湿漉漉的。街边铺子开了门，早点摊已经在卖豆浆"
    "和油条。孩子们上学要经过一座石桥，河里有船慢慢划过去。下午来玩的人多了起来，茶楼里有人在听"
    "评书，讲的是赤壁的故事。太阳落山后河水一片金黄，家家户户开始做晚饭，小镇重新变得安静。"
)
EN = (
    "The harbour town wakes slowly on winter mornings. Fishing boats return before sunrise, "
    "their decks stacked with crates of mackerel and crab, and the gulls follow them all the way "
    "to the quay. By eight the bakery on the corner has sold its first tray of rolls, and the "
    "ferry to the island sounds its horn twice before leaving. Children walk along the sea wall "
    "to school, counting the cargo ships anchored in the bay. In the afternoon the wind usually "
    "turns, carrying the smell of salt and diesel up the narrow streets, and the old men who "
    "play chess outside the library pull their coats tighter and argue about the weather."
)
EN_REWRITE = (
    "On cold mornings the little port comes to life gradually. Trawlers come back in the dark "
    "loaded with fish and crabs while seabirds circle overhead. The corner bakery is busy early, "
    "and the island boat leaves after two blasts of its horn. Pupils stroll by the harbour wall "
    "on their way to class and count the freighters offshore. Later the breeze shifts and brings "
    "the scent of brine and engine fuel into the lanes, where elderly chess players outside the "
    "library button up and complain about the cold."
)

LIGHT_EDITS = {
    "zh typo": (ZH, ZH.replace("忙碌", "忙录")),
    "zh sentence inserted": (ZH, ZH.replace("安静下来。",
                                            "安静下来。远处的寺庙传来几声钟响，回荡在山谷之间。")),
    "zh punctuation width": (ZH, ZH.replace("，", ",").replace("。", ".")),
    "zh line breaks": (ZH, ZH.replace("。", "。\n\n")),
    "en typo": (EN, EN.replace("mackerel", "makerel")),
    "en sentence inserted": (EN, EN.replace("before leaving. ",
                                            "before leaving. A few tourists wave from the deck. ")),
    "en punctuation width": (EN, EN.replace(",", "，").replace(".", "。")),
    "en full-width letters": (EN, EN.replace("harbour town", "ｈａｒｂｏｕｒ ｔｏｗｎ")),
    "mixed": (ZH + EN, ZH.replace("石板路", "青石板路") + EN.upper()),
}
HEAVY_REWRITES = {"zh": (ZH, ZH_REWRITE), "en": (EN, EN_REWRITE)}


@pytest.fixture(scope="module")
def fp() -> Fingerprinter:
    return Fingerprinter()


# -- settings ---------------------------------------------------------------------------------
def test_settings_from_options() -> None:
    s = FingerprintSettings.from_options(ScanOptions(num_perm=64, seed=7, shingle=4))
    assert s == FingerprintSettings(num_perm=64, seed=7, shingle=4, minhash=True, user_dict=None)
    assert not FingerprintSettings.from_options(ScanOptions(method=Method.SIMHASH)).minhash
    assert FingerprintSettings.from_options(ScanOptions()) == FingerprintSettings()
    with pytest.raises(ValueError):
        FingerprintSettings(shingle=0)


# -- contents ---------------------------------------------------------------------------------
def test_fields(fp: Fingerprinter) -> None:
    text = "  第一行：你好，世界！\r\n\r\nSecond LINE\twith  spaces\n"
    f = fp.fingerprint(text)
    norm = normalize(text)
    assert norm == "第一行:你好,世界!\nsecond line with spaces"
    assert f.text_hash == hash128_hex(norm)
    assert f.chars == len(norm)
    assert f.units == len(units(norm)) == 11
    assert f.line_hashes.tolist() == [hash64(x) for x in norm.split("\n")]
    assert f.minhash.dtype == np.uint32 and f.minhash.shape == (128,)
    assert isinstance(f.simhash, int) and 0 <= f.simhash < 2**64
    assert not f.minhash.flags.writeable and not f.line_hashes.flags.writeable


def test_same_text_different_form(fp: Fingerprinter) -> None:
    a = fp.fingerprint("你好，世界！ＡＢＣ")
    b = fp.fingerprint("你好,世界!abc\n")
    assert a == b
    assert a != fp.fingerprint("你好世界 abd")
    assert a != "not a fingerprint"


def test_pickles_for_worker_processes(fp: Fingerprinter) -> None:
    f = fp.fingerprint(ZH)
    assert pickle.loads(pickle.dumps(f)) == f
    s = FingerprintSettings(user_dict="x.txt")
    assert pickle.loads(pickle.dumps(s)) == s


@pytest.mark.parametrize("protocol", [2, pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL])
def test_unpickled_fingerprints_keep_dtypes_and_stay_read_only(fp: Fingerprinter,
                                                               protocol: int) -> None:
    # the compact pickling workers use (arrays as bytes) must give back the same arrays
    for f in (fp.fingerprint(ZH + "\n" + EN), fp.fingerprint(""),
              Fingerprinter(FingerprintSettings(minhash=False)).fingerprint(EN)):
        g = pickle.loads(pickle.dumps(f, protocol=protocol))
        assert g == f and g.simhash == f.simhash and g.text_hash == f.text_hash
        for back, orig in ((g.minhash, f.minhash), (g.line_hashes, f.line_hashes)):
            assert back.dtype == orig.dtype and back.shape == orig.shape
            assert np.array_equal(back, orig) and not back.flags.writeable


def test_empty_document(fp: Fingerprinter) -> None:
    f = fp.fingerprint(" \n\t")
    assert (f.simhash, f.chars, f.units, f.line_hashes.shape) == (0, 0, 0, (0,))
    assert (f.minhash == 0xFFFFFFFF).all()


def test_minhash_off() -> None:
    f = Fingerprinter(FingerprintSettings(minhash=False)).fingerprint(EN)
    assert f.minhash.shape == (0,)
    assert f.simhash == Fingerprinter().fingerprint(EN).simhash


def test_settings_change_the_signature() -> None:
    base = Fingerprinter().fingerprint(EN)
    assert Fingerprinter(FingerprintSettings(num_perm=64)).fingerprint(EN).minhash.shape == (64,)
    assert not np.array_equal(Fingerprinter(FingerprintSettings(seed=2)).fingerprint(EN).minhash,
                              base.minhash)
    assert not np.array_equal(
        Fingerprinter(FingerprintSettings(shingle=5)).fingerprint(EN).minhash, base.minhash)


def test_batch_equals_one_by_one(fp: Fingerprinter) -> None:
    texts = [ZH, "", EN, "短", "a\x00b", " \n ", ZH_REWRITE + EN_REWRITE, "只有 three units",
             "\U00020000\U00020001 𝐀𝐁", EN]
    assert fp.fingerprint_many(texts) == [fp.fingerprint(t) for t in texts]
    assert fp.fingerprint_many([]) == []
    drop = np.array([hash64("boiler plate line")], np.uint64)
    texts = [t + "\nBoiler plate line" for t in texts]
    assert fp.fingerprint_many(texts, drop) == [fp.fingerprint(t, drop) for t in texts]


def test_jieba_fallback_gives_the_same_fingerprints() -> None:
    """rjieba is only a faster jieba: without it nothing a scan stores may change."""
    pytest.importorskip("rjieba")
    texts = [ZH, ZH_REWRITE, ZH + EN, "《天行社区》里的斗地主很好玩，除了斗地主还有很多内容"]
    fast = Fingerprinter(segmenter=Segmenter(backend="rjieba")).fingerprint_many(texts)
    slow = Fingerprinter(segmenter=Segmenter(backend="jieba")).fingerprint_many(texts)
    assert fast == slow


@pytest.mark.parametrize("settings", [FingerprintSettings(), FingerprintSettings(shingle=1),
                                      FingerprintSettings(shingle=5, minhash=False)])
def test_long_documents_piece_by_piece_give_the_same(monkeypatch: pytest.MonkeyPatch,
                                                     settings: FingerprintSettings) -> None:
    import neardup_core.fingerprint.fingerprinter as fpm

    fp = Fingerprinter(settings)
    texts = [
        "\n".join([ZH, EN, ZH_REWRITE, "", "  ", EN_REWRITE, *FOOTER] * 3),
        "\r\n".join(["。。", "短", "!!", "", "x"] * 40),  # pieces without units
        "好\n" + "!\n" * 80 + "吗",                      # fewer units than a shingle
        (EN + "\n") * 4 + "\n".join(FOOTER * 20),       # mostly boilerplate: kept whole
    ]
    drop_sets = [None, DROP]
    want = [[fp.fingerprint_many([t], d)[0] for t in texts] for d in drop_sets]
    monkeypatch.setattr(fpm, "LARGE_CHARS", 100)
    monkeypatch.setattr(fpm, "PIECE_CHARS", 37)
    for d, expected in zip(drop_sets, want, strict=True):
        got = fp.fingerprint_many([*texts, "small one"], d)
        assert got[:-1] == expected
        assert got[-1] == Fingerprinter(settings).fingerprint("small one", d)


@pytest.mark.parametrize("piece", [23, 37, 101])
def test_one_long_line_piece_by_piece_gives_the_same(monkeypatch: pytest.MonkeyPatch,
                                                     piece: int) -> None:
    """A file that is one long line (no line break in 60 MB: an export, a \\r-only file)
    used to be fingerprinted whole, 2.4 GB at the peak. It is cut inside the line now, at
    spaces and after punctuation, with the same fingerprint, line hashes included."""
    import random

    import neardup_core.fingerprint.fingerprinter as fpm

    rng = random.Random(piece)
    words = ["合同", "甲方", "乙方", "付款", "期限", "the", "Contract", "term", "naïve",
             "Straße", "ＡＢＣ", "x\u0301y", "42", "e.g.", "3.14"]
    marks = [" ", " ", " ", "，", "。", ", ", ". ", "；", "  ", "\t", "、", "!"]
    one_line = "".join(rng.choice(words) + rng.choice(marks) for _ in range(400))
    with_breaks = one_line[:2000] + "\n\n" + one_line[2000:5000] + "\r" + one_line[5000:]
    footer = "本文件仅供内部参考，未经许可不得转载。"
    texts = [one_line, with_breaks, (footer + " ") * 300 + "\n" + footer, "。" * 500,
             "中文" * 400]  # the last has no cut but its pieces' edges: checked apart below
    drop = np.array([hash64(normalize(footer))], np.uint64)
    fp = Fingerprinter()
    want = [[fp.fingerprint_many([t], d)[0] for t in texts] for d in (None, drop)]
    monkeypatch.setattr(fpm, "LARGE_CHARS", 100)
    monkeypatch.setattr(fpm, "PIECE_CHARS", piece)
    for d, expected in zip((None, drop), want, strict=True):
        got = fp.fingerprint_many(texts, d)
        assert got[:-1] == expected[:-1]
        blob = got[-1]  # cut where it had to be: everything but the words at the cuts agrees
        assert (blob.text_hash, blob.chars, blob.units) == (
            expected[-1].text_hash, expected[-1].chars, expected[-1].units)
        np.testing.assert_array_equal(blob.line_hashes, expected[-1].line_hashes)


def test_long_line_pieces_stay_near_their_size() -> None:
    from neardup_core.fingerprint.fingerprinter import _line_pieces

    for text in ("中文" * 5000, "word " * 2000, "a" * 10_000, "好，" * 5000):
        pieces = list(_line_pieces(text, 500))
        assert all(len(p) <= 1000 for p, _ in pieces)
        assert len(pieces) >= 10
        assert "".join(sep + p for p, sep in pieces)[1:] == text  # nothing lost or added


def test_module_level_helpers() -> None:
    assert fingerprint_text(EN) == Fingerprinter().fingerprint(EN)
    assert fingerprint_texts([EN, ZH]) == [fingerprint_text(EN), fingerprint_text(ZH)]
    s = FingerprintSettings(num_perm=32)
    assert fingerprint_text(EN, s).minhash.shape == (32,)


# -- boilerplate ------------------------------------------------------------------------------
FOOTER = ["本文件仅供内部参考，未经许可不得转载。", "Confidential - do not distribute."]
DROP = np.array([hash64(normalize(x)) for x in FOOTER], np.uint64)


def test_boilerplate_lines_are_left_out(fp: Fingerprinter) -> None:
    text = EN + "\n" + "\n".join(FOOTER)
    whole = fp.fingerprint(text)
    cleaned = fp.fingerprint(text, DROP)
    assert cleaned.text_hash == whole.text_hash and cleaned.chars == whole.chars
    assert np.array_equal(cleaned.line_hashes, whole.line_hashes)
    alone = fp.fingerprint(EN)
    assert (cleaned.simhash, cleaned.units) == (alone.simhash, alone.units)
    assert np.array_equal(cleaned.minhash, alone.minhash)
    assert cleaned.units < whole.units


def test_only_boilerplate_is_kept_whole(fp: Fingerprinter) -> None:
    text = "\n".join(FOOTER)
    assert fp.fingerprint(text, DROP) == fp.fingerprint(text)
    assert fp.fingerprint(text, np.empty(0, np.uint64)) == fp.fingerprint(text)


def test_mostly_boilerplate_is_still_dropped(fp: Fingerprinter) -> None:
    """A short memo under a long letterhead is compared by its own words (near-copies are
    protected by the scan, which counts them once when it picks boilerplate)."""
    text = "Short note.\n" + "\n".join(FOOTER)
    f = fp.fingerprint(text, DROP)
    assert f.units == 2
    assert f.text_hash == fp.fingerprint(text).text_hash


def test_exactly_half_is_dropped(fp: Fingerprinter) -> None:
    text = "abcd\nwxyz"  # 9 characters; dropping "wxyz" removes 4 <= 4.5
    f = fp.fingerprint(text, np.array([hash64("wxyz")], np.uint64))
    assert f.units == 1


# -- scores -----------------------------------------------------------------------------------
def test_normalized_jaccard_basics() -> None:
    assert normalized_jaccard(EN, EN) == 1.0
    assert normalized_jaccard("", " ") == 1.0
    assert normalized_jaccard("", EN) == 0.0
    assert normalized_jaccard("你好，世界", "你好,世界") == 1.0
    assert normalized_jaccard("a b c d", "a b c e") == pytest.approx(1 / 3)
    assert normalized_jaccard("a b c d", "a b c e", n=1) == pytest.approx(3 / 5)


@pytest.mark.parametrize("case", sorted(LIGHT_EDITS))
def test_light_edits_stay_similar(fp: Fingerprinter, case: str) -> None:
    a, b = LIGHT_EDITS[case]
    truth = normalized_jaccard(a, b)
    fa, fb = fp.fingerprint(a), fp.fingerprint(b)
    est = jaccard(fa.minhash, fb.minhash)
    assert truth > 0.7
    assert est > 0.7
    assert abs(est - truth) <= 4 * standard_error(truth, 128) + 1e-9
    assert simhash_similarity(hamming_distance(fa.simhash, fb.simhash)) > 0.7


@pytest.mark.parametrize("case", sorted(HEAVY_REWRITES))
def test_heavy_rewrites_fall_apart(fp: Fingerprinter, case: str) -> None:
    a, b = HEAVY_REWRITES[case]
    fa, fb = fp.fingerprint(a), fp.fingerprint(b)
    assert normalized_jaccard(a, b) < 0.45
    assert jaccard(fa.minhash, fb.minhash) < 0.45
    assert simhash_similarity(hamming_distance(fa.simhash, fb.simhash)) < 0.45


# -- reproducibility --------------------------------------------------------------------------
def as_json(fps: list[DocFingerprint]) -> list[dict]:
    return [{"simhash": f.simhash, "minhash": f.minhash.tolist(), "text_hash": f.text_hash,
             "chars": f.chars, "units": f.units, "lines": f.line_hashes.tolist()} for f in fps]


def test_identical_in_another_process(tmp_path: Path) -> None:
    texts = [ZH, EN, ZH_REWRITE + "\n" + EN_REWRITE, "短"]
    (tmp_path / "texts.json").write_text(json.dumps(texts), encoding="utf-8")
    code = textwrap.dedent("""
        import json, sys
        from neardup_core.fingerprint.fingerprinter import fingerprint_text
        texts = json.load(open("texts.json", encoding="utf-8"))
        out = [fingerprint_text(t) for t in texts]
        json.dump([{"simhash": f.simhash, "minhash": f.minhash.tolist(),
                    "text_hash": f.text_hash, "chars": f.chars, "units": f.units,
                    "lines": f.line_hashes.tolist()} for f in out], sys.stdout)
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": "12345"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120, check=True)
    assert proc.stderr == ""
    assert json.loads(proc.stdout) == as_json([fingerprint_text(t) for t in texts])
