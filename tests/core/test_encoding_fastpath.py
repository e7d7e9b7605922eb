"""The fast paths of decode_bytes: same decisions as the slow ones, only sooner.

Two kinds of speed-up are checked here. The exact ones (plausibility without a per-character
Python loop, candidates left unscored when they provably cannot change the outcome, the
UTF-8-damage check that skips decoding) must agree with straightforward reference code to the
last bit. The shortcuts that skip chardet (clear CJK text, English with Windows punctuation) must
take the cases they are meant for and leave everything doubtful to chardet.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import neardup_core.extract.encoding.candidates as cand
import neardup_core.extract.encoding.detect as enc
import neardup_core.extract.encoding.plausibility as plaus
from neardup_core.extract.encoding.detect import decode_bytes
from neardup_core.extract.encoding.plausibility import plausibility

ZH = ("我们的团队今年完成了三个重要的项目，客户对结果非常满意。下个月公司会组织一次培训，"
      "帮助新同事了解工作流程。如果你有任何问题，可以随时联系办公室的张老师。\n"
      "天气预报说明天会下雨，出门的时候记得带伞。周末我们打算去郊外看看朋友，顺便在河边吃午饭。\n")
TW = ("我們的團隊今年完成了三個重要的專案，客戶對結果非常滿意。下個月公司會舉辦一次訓練，"
      "幫助新同事了解工作流程。如果你有任何問題，可以隨時聯絡辦公室的陳老師。\n"
      "氣象報告說明天會下雨，出門的時候記得帶傘。週末我們打算去郊外看看朋友，順便在河邊吃午餐。\n")
JA = "来週の会議は水曜日の午後三時から始まります。資料は前日までにメールで送ってください。\n"
KO = "다음 주 회의는 수요일 오후 세 시에 시작합니다. 자료는 전날까지 메일로 보내 주세요.\n"
EN = ("The committee met on Tuesday to review the draft budget. “We’re not there yet,” the chair "
      "said — and nobody disagreed. The numbers for the second quarter look better than "
      "expected… but the travel line is still 12 % over plan. Members asked for two options:\n"
      "• keep the current schedule and cut the training days;\n"
      "• move the launch to October and keep everything else.\n"
      "A decision is due next week. ‘Better late than wrong’ was the general mood.\n") * 3
PL = ("Wczoraj wieczorem pojechaliśmy do babci, która mieszka w małej wsi pod Łodzią. "
      "Zjedliśmy pyszną zupę, a potem długo rozmawialiśmy o dawnych czasach. "
      "Źródło w ogrodzie znów płynie, więc dziadek jest bardzo zadowolony.\n")
CS = ("Včera večer jsme jeli k babičce, která bydlí v malé vesnici u Brna. Snědli jsme výbornou "
      "polévku a potom jsme dlouho povídali o starých časech. Příští týden se vrátíme znovu, "
      "protože dědeček chce opravit střechu a potřebuje pomoc.\n")
RU = ("Вчера вечером мы поехали к бабушке, которая живёт в маленькой деревне под Москвой. "
      "Мы съели вкусный суп, а потом долго говорили о старых временах. "
      "На следующей неделе мы снова приедем, потому что дедушка хочет починить крышу.\n")


@pytest.fixture
def chardet_calls(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Record what chardet is asked (and still ask it): its verdict comes from
    ``detect_like_chardet``, chardet itself or the same answer computed faster."""
    calls: list[bytes] = []
    real = enc.detect_like_chardet

    def spy(data: bytes) -> tuple[str | None, float]:
        calls.append(data)
        return real(data)

    monkeypatch.setattr(enc, "detect_like_chardet", spy)
    return calls


def _sample(data: bytes) -> bytes:
    return cand.safe_cut(data[: 64 * 1024], len(data))


# -- exact speed-ups -------------------------------------------------------------------------

_REF_CJK = re.compile(f"[{plaus._CJK_CLASS}]")
_REF_GLUED = re.compile(f"(?=[A-Za-z][{plaus._CJK_CLASS}]|[{plaus._CJK_CLASS}][A-Za-z])")
#: Runs of three or more characters from U+0080-U+00FF other than the no-break space: each
#: character after the second costs a point.
_REF_LATIN1_RUN = re.compile("[\u0080-\u009f\u00a1-\u00ff]{3,}")


def _reference_plausibility(text: str) -> float:
    """The score as first written: a Counter loop and a regex."""
    total = 0
    score = 0.0
    for ch, n in Counter(text).items():
        if ch.isspace():
            continue
        total += n
        score += n * plaus.char_weight(ch)
    if not total:
        return 1.0
    glued = sum(1 for _ in _REF_GLUED.finditer(text))
    runs = sum(len(m.group()) - 2 for m in _REF_LATIN1_RUN.finditer(text))
    return (score - (glued + runs)) / total


def test_tables_match_char_weight_and_cjk_class() -> None:
    tenths, script = plaus._tables()
    for o in range(0x10000):
        c = chr(o)
        if c.isspace():
            assert tenths[o] == plaus._SPACE, hex(o)
        else:
            assert tenths[o] / 10 == plaus.char_weight(c), hex(o)
        cjk = script[o] in (plaus._IDEOGRAPH, plaus._KANA_HANGUL)
        assert cjk == bool(_REF_CJK.match(c)), hex(o)
    assert not any(chr(o).isspace() for o in range(0x10000, 0x110000, 97))


def _texts() -> list[str]:
    rng = random.Random(11)
    out = [ZH, TW, JA, KO, EN, PL, CS, RU, ZH * 30, (JA + EN) * 9, "", " \n\t", "𠀀㐀中文abc" * 50]
    for text, codec, wrong in ((ZH, "gbk", "cp950"), (TW, "big5", "gb18030"), (ZH, "gbk", "cp932"),
                               (JA, "shift_jis", "gb18030"), (KO * 4, "euc_kr", "cp1252")):
        out.append(text.encode(codec).decode(wrong, errors="replace") * 5)
    for _ in range(40):
        n = rng.choice([5, 150, 199, 200, 201, 900, 5000])
        out.append("".join(chr(rng.choice([rng.randint(0x20, 0x7e), rng.randint(0x80, 0xffff),
                                           rng.randint(0x4e00, 0x9fff), rng.randint(0x3040, 0x30ff),
                                           rng.randint(0x20000, 0x2ffff), 0x3002, 0x20]))
                           for _ in range(n)).encode("utf-16", "surrogatepass")
                   .decode("utf-16", "replace"))
    return out


@pytest.mark.parametrize("text", _texts())
def test_plausibility_is_bit_identical_to_the_counter_loop(text: str) -> None:
    expected = _reference_plausibility(text)
    assert plausibility(text) == expected
    quick, exact = plaus.quick_plausibility(text)
    assert abs(quick - expected) <= plaus.QUICK_ERROR
    if exact:
        assert quick == expected


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400), st.integers(min_value=1, max_value=3))
def test_plausibility_matches_the_reference_on_any_text(text: str, repeat: int) -> None:
    text *= repeat   # repeated text crosses the length at which numpy takes over
    assert plausibility(text) == _reference_plausibility(text)
    quick, exact = plaus.quick_plausibility(text)
    assert abs(quick - plausibility(text)) <= plaus.QUICK_ERROR
    assert not exact or quick == plausibility(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_cp1252_ceiling_is_an_upper_bound(data: bytes) -> None:
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        return
    assert plausibility(text) <= plaus.cp1252_ceiling(data)


def _reference_almost_utf8(sample: bytes) -> bool:
    text = sample.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - sample.decode("utf-8", errors="ignore").count("\ufffd")
    wide = len(text) - len(text.encode("ascii", errors="ignore")) - bad
    return bad > 0 and wide >= 50 * bad


@pytest.mark.parametrize("data", [
    ZH.encode("gbk"), TW.encode("big5"), (ZH * 40).encode("utf-8") + b"\xff",
    (ZH * 40).encode("utf-8") + b"caf\xe9", (ZH * 40).encode("utf-8") + b"\xf8\xf9",
    EN.encode("cp1252"), b"\xc0", b"abc\xf5",
])
def test_utf8_damage_check_agrees_with_decoding(data: bytes) -> None:
    assert enc._almost_utf8(data) == _reference_almost_utf8(data)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"\xe4\xb8\xad", b"\xc3\xa9", b"\xff", b"\xf8", b"\xc0",
                                 b"\xe4", b"\x80", b"\xf0\x9f\x98\x80"]), max_size=200))
def test_utf8_damage_check_agrees_on_mixtures(parts: list[bytes]) -> None:
    data = b"".join(parts)
    assert enc._almost_utf8(data) == _reference_almost_utf8(data)


def _reference_scores(head: bytes, order: list[str],
                      trusted: tuple[str, ...]) -> list[tuple[float, int, str, bool]]:
    scored = []
    for rank, codec in enumerate(order):
        strict = cand.strict_decode(head, codec)
        text = strict[0] if strict is not None else head.decode(codec, errors="replace")
        score = _reference_plausibility(text[: cand.SCORE_SAMPLE])
        if codec in trusted:
            score += 0.05
        if strict is None:
            score -= cand.NOT_STRICT
        scored.append((score, -rank, codec, strict is not None))
    return scored


def _deciding(scored: list[tuple[float, int, str, bool]]) -> list[tuple[float, int, str, bool]]:
    """What _detect reads of the sorted scores: the best, and all down to the first one more
    than 0.1 below it."""
    ranked = sorted(scored, reverse=True)
    top = ranked[0][0]
    return [entry for entry in ranked if not entry[0] < top - 0.1]


_HEADS = [ZH.encode("gbk"), TW.encode("big5"), JA.encode("shift_jis"), KO.encode("euc_kr"),
          EN.encode("cp1252"), (EN + "café naïve").encode("cp1252"), PL.encode("cp1250"),
          RU.encode("cp1251"), b"\x93short\x94", ZH.encode("gbk")[:9], bytes(range(128, 256)),
          random.Random(5).randbytes(300)]


@pytest.mark.parametrize("head", _HEADS)
@pytest.mark.parametrize("trusted", [(), ("cp1252",), ("cp950", "big5hkscs"), ("iso8859-2",),
                                     ("gb18030",)])
def test_left_out_candidates_cannot_change_the_outcome(head: bytes,
                                                       trusted: tuple[str, ...]) -> None:
    order = list(dict.fromkeys([*trusted, *enc._CANDIDATES, *trusted]))
    pruned = cand.score_candidates(head, order, trusted)
    full = _reference_scores(head, order, trusted)
    assert set(pruned) <= set(full)
    assert _deciding(pruned) == _deciding(full)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(min_size=1, max_size=200), st.sampled_from([(), ("cp1252",), ("koi8-r",)]))
def test_left_out_candidates_cannot_change_the_outcome_on_any_bytes(
        head: bytes, trusted: tuple[str, ...]) -> None:
    order = list(dict.fromkeys([*trusted, *enc._CANDIDATES]))
    assert _deciding(cand.score_candidates(head, order, trusted)) == _deciding(
        _reference_scores(head, order, trusted))


_TOP_HEADS = [*_HEADS, EN.encode("cp1252")[:50], "Ça va très bien, merci.".encode("cp1252"),
              RU.encode("koi8-r"), "日本語のテキスト".encode("euc_jp")]


@pytest.mark.parametrize("head", _TOP_HEADS)
@pytest.mark.parametrize("trusted", [(), ("cp1252",), ("cp950", "big5hkscs"), ("iso8859-2",),
                                     ("gb18030",), ("koi8-r",), ("utf-16-le",)])
def test_the_top_candidate_is_the_full_rankings_first(head: bytes,
                                                      trusted: tuple[str, ...]) -> None:
    # _detect reads the first of the ranking, and only when it does not decode the whole file
    # the rest: the top found by scoring as few as possible must be that very entry.
    order = list(dict.fromkeys([*trusted, *enc._CANDIDATES, *trusted]))
    assert cand.top_candidate(head, order, trusted) == max(_reference_scores(head, order, trusted))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(min_size=1, max_size=300),
       st.sampled_from([(), ("cp1252",), ("koi8-r",), ("gb18030",), ("shift_jis", "cp932")]))
def test_the_top_candidate_is_the_full_rankings_first_on_any_bytes(
        head: bytes, trusted: tuple[str, ...]) -> None:
    order = list(dict.fromkeys([*trusted, *enc._CANDIDATES]))
    assert cand.top_candidate(head, order, trusted) == max(_reference_scores(head, order, trusted))


def test_a_clean_trusted_reading_is_the_only_one_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    # Western text chardet names (unsure): its reading scores above what any other could
    # reach, so no other candidate is decoded or scored.
    head = (EN.replace("“", '"').replace("”", '"') + "Café crème, déjà vu.").encode("cp1252")
    decoded: list[str] = []
    real = cand.strict_decode

    def spy(data: bytes, codec: str) -> tuple[str, int] | None:
        decoded.append(codec)
        return real(data, codec)

    monkeypatch.setattr(cand, "strict_decode", spy)
    order = list(dict.fromkeys(["cp1252", *enc._CANDIDATES]))
    top = cand.top_candidate(head, order, ("cp1252",))
    assert top[2] == "cp1252" and decoded == ["cp1252"]


# -- the CJK shortcut ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "codec", "expected"), [
    (ZH, "gbk", "gb18030"),
    (ZH, "gb18030", "gb18030"),
    ("古籍里的生僻字𠀀和㐀只有新标准才能表示。" + ZH, "gb18030", "gb18030"),
    (TW, "big5", "cp950"),
    (TW, "cp950", "cp950"),
    (JA * 2, "shift_jis", "cp932"),
    (JA * 2, "euc_jp", "euc_jp"),
    (KO * 2, "euc_kr", "cp949"),
])
def test_clear_cjk_text_is_decided_without_chardet(text: str, codec: str, expected: str,
                                                   chardet_calls: list[bytes]) -> None:
    data = text.encode(codec)
    decoded = decode_bytes(data)
    assert (decoded.text, decoded.encoding, decoded.replaced) == (text, expected, 0)
    assert 0.5 <= decoded.confidence <= 0.9
    assert chardet_calls == []


def test_big5_that_is_also_valid_gbk_stays_big5(chardet_calls: list[bytes]) -> None:
    data = TW.encode("big5")
    assert data.decode("gb18030") != TW   # decodes without error: only the score tells
    decoded = decode_bytes(data)
    assert (decoded.text, decoded.encoding) == (TW, "cp950")
    assert chardet_calls == []


def test_big5_read_differently_by_hkscs_is_left_to_chardet(chardet_calls: list[bytes]) -> None:
    # CP950 has the euro sign at A3E1; Big5-HKSCS does not: which one wins is chardet's call.
    text = TW + "這本書的價格是二十€。\n"
    data = text.encode("cp950")
    assert enc._cjk_shortcut(data, _sample(data)) is None
    decoded = decode_bytes(data)
    assert (decoded.text, decoded.encoding) == (text, "cp950")
    assert chardet_calls


@pytest.mark.parametrize(("text", "codec", "expected"), [
    (JA, "shift_jis", {"cp932", "shift_jis"}),
    (JA, "euc_jp", {"euc_jp", "euc_jis_2004"}),
    (KO, "euc_kr", {"cp949"}),
    (JA[:20], "shift_jis", {"cp932", "shift_jis"}),
    (KO[:24], "euc_kr", {"cp949"}),
])
def test_short_japanese_and_korean_are_not_taken_for_chinese(text: str, codec: str,
                                                             expected: set[str]) -> None:
    decoded = decode_bytes(text.encode(codec))
    assert decoded.text == text
    assert decoded.encoding in expected


@pytest.mark.parametrize(("text", "codec"), [
    (JA * 2, "gbk"),        # kana in a Chinese code page: Japanese text, or mojibake
    (KO * 2, "gb18030"),    # Hangul as four-byte GB18030 sequences
    (RU * 2, "gb18030"),    # GB18030 encodes everything; this is not CJK text
    (ZH[:6], "gbk"),        # too few bytes to go on
    (ZH[:30] + EN.encode("ascii", errors="ignore").decode(), "gbk"),   # high bytes too rare
])
def test_doubtful_cjk_is_left_to_chardet(text: str, codec: str) -> None:
    data = text.encode(codec)
    assert enc._cjk_shortcut(data, _sample(data)) is None


# -- the Western shortcut -----------------------------------------------------------------

def test_english_with_windows_punctuation_is_cp1252_without_chardet(
        chardet_calls: list[bytes]) -> None:
    data = EN.encode("cp1252")
    assert len(data) >= enc.WESTERN_MIN_BYTES
    decoded = decode_bytes(data)
    assert (decoded.text, decoded.encoding, decoded.replaced) == (EN, "cp1252", 0)
    assert chardet_calls == []


@pytest.mark.parametrize(("text", "codec", "expected"), [
    (PL, "cp1250", "cp1250"),
    (PL * 5, "cp1250", "cp1250"),
    (CS, "cp1250", "cp1250"),
    (CS * 5, "cp1250", "cp1250"),
    (RU, "cp1251", "cp1251"),
    (RU * 5, "cp1251", "cp1251"),
])
def test_central_european_and_cyrillic_text_goes_to_chardet(
        text: str, codec: str, expected: str, chardet_calls: list[bytes]) -> None:
    data = text.encode(codec)
    assert enc._western_shortcut(data, _sample(data)) is None
    decoded = decode_bytes(data)
    assert (decoded.text, decoded.encoding) == (text, expected)
    assert chardet_calls


@pytest.mark.parametrize("data", [
    # DOS and Mac code pages put letters where Windows has punctuation
    EN.replace("budget", "café budget").encode("cp850", errors="replace"),
    EN.replace("budget", "hôtel budget").encode("cp437", errors="replace"),
    EN.replace("budget", "señor budget").encode("mac-roman", errors="replace"),
    # accented letters: chardet's language models decide between the 125x code pages
    EN.replace("budget", "café budget").encode("cp1252"),
    # too short, where chardet sometimes prefers a DOS code page
    EN[:300].encode("cp1252"),
    # too dense to be punctuation in English prose
    ("“quoted” " * 200).encode("cp1252"),
])
def test_doubtful_western_text_is_left_to_chardet(data: bytes) -> None:
    assert enc._western_shortcut(data, _sample(data)) is None


def test_western_punctuation_reads_alike_in_every_windows_code_page() -> None:
    pages = [f"cp125{i}" for i in range(9)]
    for b in enc._WESTERN_PUNCTUATION:
        chars = {bytes([b]).decode(page) for page in pages}
        assert len(chars) == 1
        assert unicodedata.category(chars.pop())[0] in "PSZC"


@pytest.mark.parametrize("text", [
    "本公司2025年Q3营业收入同比增长12%，CEO建议维持现有分红政策。" * 8,   # letters glued both ways
    "ÏÄ¼¾ÒýÔ®" * 40,                                   # GBK read as CP1252: Latin-1 runs
    "ção ÏÄ¼ x" * 40,                                  # runs of two and three
    "テストtestテスト한국어abc" * 20,                  # kana and Hangul next to letters
    "abc def 123 " * 40,                               # letters, nothing to glue them to
    "中文，没有字母。" * 40,                            # ideographs, no letter
    "\u00a0\u00a0\u00a0x" * 80,                        # no-break spaces never make a run
])
def test_the_penalty_is_counted_only_where_the_text_can_have_it(text: str) -> None:
    """The quick score looks for the penalty's ingredients in its histogram first; where it
    finds them it counts as the penalty does, and where not the penalty is nil."""
    expected = _reference_plausibility(text)
    quick, exact = plaus.quick_plausibility(text)
    assert abs(quick - expected) <= plaus.QUICK_ERROR
    assert not exact or quick == expected
    codes = plaus._code_points(text)
    assert plaus._penalty(codes, int(codes.max())) == \
        plaus._glued(codes) + plaus._latin1_runs(codes)


def test_quick_table_holds_the_tenths_and_what_the_penalty_looks_at() -> None:
    tenths = plaus._tables()[0]
    table = plaus._quick_table()
    assert (table & 0xFF).astype(np.uint8).view(np.int8).tolist() == tenths.tolist()
    flags = (table >> 8).tolist()
    for o in range(0x10000):
        c = chr(o)
        want = (plaus._LETTER if c.isascii() and c.isalpha() else 0) \
            + (plaus._GLUE if _REF_CJK.match(c) else 0) \
            + (plaus._HIGH_LATIN1 if 0x80 <= o <= 0xFF and o != 0xA0 else 0)
        assert flags[o] == want, hex(o)
