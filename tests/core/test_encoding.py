"""decode_bytes: every encoding a user's folders hold, short texts, damage, and binary data."""

from __future__ import annotations

import codecs
import os
import random

import pytest
import textgen as tg
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from neardup_core.extract.encoding.detect import BinaryContent, Decoded, decode_bytes
from neardup_core.extract.encoding.plausibility import plausibility

ZH = (
    "春天来了，城市里的公园开满了花。每天早上，许多老人在湖边散步、打太极拳，孩子们在草地上放风筝。\n"
    "我们公司今年的计划是把产品做得更好，同时提高服务质量。经理说，只有认真听取客户的意见，"
    "才能真正解决问题。\n"
    "学习一门新的语言需要时间和耐心。老师告诉学生，每天读一点书，写一点字，比考试前一天熬夜有用得多。\n"
)
ZH_TW = (
    "春天來了，城市裡的公園開滿了花。每天早上，許多老人在湖邊散步，孩子們在草地上放風箏。\n"
    "我們公司今年的計劃是把產品做得更好，同時提高服務質量。經理說，只有認真聽取客戶的意見，"
    "才能真正解決問題。\n"
)
EN = (
    "The quarterly report was finished late on Friday, after three rounds of edits.\n"
    "Everyone agreed that the summary should be shorter and the tables easier to read.\n"
    "Next time we will start a week earlier and share a draft before the meeting.\n"
)
LATIN = "Le café du coin sert un crème brûlée délicieux; à Zürich, naïve façade, déjà vu.\n"
JA = "今日はとてもいい天気ですね。午後は友達と一緒に公園へ散歩に行きましょう。\n"
KO = "오늘은 날씨가 정말 좋네요. 오후에 친구와 같이 공원에 산책하러 갑시다.\n"

# Short texts of 20-40 characters, where detectors have little to go on.
SHORT_ZH = ["今天下午三点在会议室开会，请大家准时参加。",
            "这本书我已经看完了，写得非常好，推荐你也读一读。",
            "明天早上八点出发，记得带上身份证和雨伞。"]
SHORT_TW = ["今天下午三點在會議室開會，請大家準時參加。", "這本書我已經看完了，寫得非常好。"]


def _same(decoded: Decoded, text: str) -> None:
    assert decoded.text == text
    assert decoded.replaced == 0


@pytest.mark.parametrize(("text", "codec", "expected"), [
    (ZH, "utf-8", {"utf-8"}),
    (EN, "utf-8", {"utf-8"}),
    (ZH + EN, "utf-8", {"utf-8"}),
    (ZH, "gbk", {"gb18030"}),
    (ZH, "gb18030", {"gb18030"}),
    (ZH_TW, "big5", {"cp950", "big5hkscs"}),
    (JA, "shift_jis", {"cp932", "shift_jis"}),
    (JA * 3, "euc_jp", {"euc_jp", "euc_jis_2004"}),
    (KO * 3, "euc-kr", {"cp949"}),
    (EN + LATIN, "cp1252", {"cp1252"}),
    (LATIN * 3, "latin-1", {"cp1252", "iso8859-1"}),
    (ZH + EN, "utf-16-le", {"utf-16-le"}),
    (ZH + EN, "utf-16-be", {"utf-16-be"}),
    (EN, "utf-16-le", {"utf-16-le"}),
    (ZH + EN, "utf-32-le", {"utf-32-le"}),
    (ZH + EN, "utf-32-be", {"utf-32-be"}),
])
def test_decodes_without_bom(text: str, codec: str, expected: set[str]) -> None:
    decoded = decode_bytes(text.encode(codec))
    _same(decoded, text)
    assert decoded.encoding in expected
    assert 0.0 < decoded.confidence <= 1.0


@pytest.mark.parametrize(("codec", "bom"), [
    ("utf-8-sig", b""),        # these three codecs write a BOM themselves
    ("utf-8", codecs.BOM_UTF8),
    ("utf-16", b""),
    ("utf-32", b""),
    ("utf-16-le", codecs.BOM_UTF16_LE),
    ("utf-16-be", codecs.BOM_UTF16_BE),
    ("utf-32-le", codecs.BOM_UTF32_LE),
    ("utf-32-be", codecs.BOM_UTF32_BE),
])
@pytest.mark.parametrize("text", [ZH, EN, SHORT_ZH[0]])
def test_bom_wins_with_full_confidence(text: str, codec: str, bom: bytes) -> None:
    data = bom + text.encode(codec)
    decoded = decode_bytes(data)
    _same(decoded, text)
    assert decoded.confidence == 1.0
    # The reported codec decodes the same bytes to the same text (used for re-reading).
    assert data.decode(decoded.encoding) == text


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("text", [
    "中文测试文本，今天天气很好。",          # no NUL byte at all
    "会议室开会",                           # 开 is U+5F00: a NUL in the low byte
    SHORT_ZH[0] * 5,
])
def test_cjk_only_utf16_without_bom(text: str, codec: str) -> None:
    decoded = decode_bytes(text.encode(codec))
    _same(decoded, text)
    assert decoded.encoding == codec


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("text", [
    "没有字节顺序标记的十六位编码文本。" * 5,                 # no NUL; plausibility 0.52
    "翡翠湖畔的螺蛳粉摊位，每碗售价15元，顾客络绎不绝。",    # NULs; plausibility 0.44
])
def test_chinese_of_uncommon_characters_in_utf16_without_bom(text: str, codec: str) -> None:
    """Mostly CJK text needs a plausibility of 0.4 rather than 0.5 (0.6 without NULs) to be
    taken for UTF-16: binary read so gives rare ideographs, which weigh nothing, whereas a
    short text of uncommon names was refused as binary."""
    decoded = decode_bytes(text.encode(codec))
    _same(decoded, text)
    assert decoded.encoding == codec


def test_short_utf8_with_a_control_character_is_not_taken_for_utf16() -> None:
    """Found by Hypothesis: eight bytes of UTF-8 with a backspace are control-heavy, and read
    as UTF-16 LE they made four ideographs. Valid UTF-8 with multi-byte characters is UTF-8
    (here, control-heavy, binary), never BOM-less UTF-16."""
    text = "0\x08\xac\U00098c8b"
    try:
        decoded = decode_bytes(text.encode("utf-8"))
    except BinaryContent:
        return
    assert decoded.text == text


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_cjk_whose_bytes_are_all_ascii_is_still_read(codec: str) -> None:
    # U+4E01-U+4E1D: every byte under 0x80 (valid UTF-8), half of them control characters
    text = "丁七万丈三上下不与专且世丘丙业丛东丝"
    data = text.encode(codec)
    assert data.isascii()
    decoded = decode_bytes(data)
    assert decoded.encoding == codec
    assert decoded.text == text


def test_utf32_bom_is_not_taken_for_utf16() -> None:
    decoded = decode_bytes(codecs.BOM_UTF32_LE + "中文 text".encode("utf-32-le"))
    assert decoded.encoding == "utf-32"
    assert decoded.text == "中文 text"


def test_utf16_bom_then_nul_is_not_taken_for_utf32() -> None:
    data = codecs.BOM_UTF16_LE + "\x00000000".encode("utf-16-le")  # starts FF FE 00 00
    decoded = decode_bytes(data)
    assert (decoded.text, decoded.encoding, decoded.replaced) == ("\x00000000", "utf-16", 0)


def test_ascii_is_utf8_with_full_confidence() -> None:
    decoded = decode_bytes(EN.encode("ascii"))
    assert (decoded.encoding, decoded.confidence) == ("utf-8", 1.0)


def test_empty_bytes_decode_to_empty_text() -> None:
    assert decode_bytes(b"") == Decoded("", "utf-8", 1.0, 0)


def test_gb18030_beyond_gbk() -> None:
    text = "古籍里有一些生僻字，比如𠀀和㐀，只有GB18030才能表示。\n" + ZH
    data = text.encode("gb18030")
    with pytest.raises(UnicodeEncodeError):
        text.encode("gbk")
    decoded = decode_bytes(data)
    _same(decoded, text)
    assert decoded.encoding == "gb18030"


@pytest.mark.parametrize("text", SHORT_ZH)
@pytest.mark.parametrize("codec", ["gbk", "gb18030", "utf-8"])
def test_short_simplified_chinese(text: str, codec: str) -> None:
    _same(decode_bytes(text.encode(codec)), text)


@pytest.mark.parametrize("text", SHORT_TW)
def test_short_traditional_chinese_in_big5(text: str) -> None:
    decoded = decode_bytes(text.encode("big5"))
    _same(decoded, text)
    assert decoded.encoding in {"cp950", "big5hkscs"}


def test_a_few_words_of_chinese_are_not_read_as_western_mojibake() -> None:
    """Six to twenty characters of GBK or Big5: every byte is >= 0x80, and read as CP1252
    they are Latin-1 letters and symbols that weighed like real accented text, so a phrase
    of uncommon characters came out as "ÏÄ¼¾ÒýÔ®" (about one in thirty here did)."""
    rng = random.Random(5)
    wrong = []
    tried = 0
    for _ in range(500):
        text = tg.zh_sentence(rng)[: rng.randint(6, 20)]
        for codec in ("gbk", "big5"):
            try:
                data = text.encode(codec)
            except UnicodeEncodeError:
                continue
            tried += 1
            got = decode_bytes(data)
            if got.text != text:
                wrong.append((text, codec, got.encoding))
    assert tried > 500   # every one in GBK, those without simplified characters in Big5
    assert not wrong, wrong[:10]


def test_western_text_keeps_its_accented_letters_next_to_each_other() -> None:
    """Two accented letters in a row are ordinary ("ção"); runs of Latin-1 letters cost points
    only from the third on, and every reading of the same bytes in a Western code page pays
    alike, so Western text stays in its code page."""
    for text in ("A instalação das funções não está concluída; ações pendentes: três.",
                 "Þjóðólfur og Ævar fóru í ferðalag með ömmu sinni í gær.",
                 "Der Bär läuft über die Brücke, während die Mäuse schlafen.",
                 "«Où êtes-vous?» demanda-t-elle à l'élève français."):
        got = decode_bytes(text.encode("cp1252"))
        assert got.text == text and got.encoding in {"cp1252", "iso8859-1", "iso8859-15"}, got


def test_big5_euro_sign_needs_cp950() -> None:
    text = "這本書的價格是二十€，" + SHORT_TW[1]
    decoded = decode_bytes(text.encode("cp950"))
    _same(decoded, text)


def test_mixed_line_endings_are_kept_by_decode() -> None:
    text = "第一行\r\n第二行\r第三行\nline four\r\n"
    decoded = decode_bytes(text.encode("gbk"))
    assert decoded.text == text


@pytest.mark.parametrize("codec", ["utf-8", "gbk", "big5", "shift_jis"])
def test_truncated_multibyte_tail_is_one_replacement(codec: str) -> None:
    text = {"big5": ZH_TW, "shift_jis": JA * 3}.get(codec, ZH)
    text = text.rstrip("\n")
    data = text.encode(codec)[:-1]  # cut the last character in half
    decoded = decode_bytes(data)
    assert decoded.text == text[:-1] + "\ufffd"
    assert decoded.replaced == 1


def test_replacements_count_only_new_ones() -> None:
    text = ZH + "原文里本来就有一个替换符\ufffd。\n"
    data = text.encode("utf-8") + b"\xff" + ZH.encode("utf-8")
    decoded = decode_bytes(data)
    assert decoded.encoding == "utf-8"
    assert decoded.replaced == 1
    assert decoded.text == text + "\ufffd" + ZH
    assert decoded.confidence < 0.7


def test_a_stray_latin1_byte_in_utf8_text() -> None:
    text = (ZH + LATIN) * 3
    data = text.encode("utf-8") + b"caf\xe9\n"  # one line pasted from a Latin-1 file
    decoded = decode_bytes(data)
    assert (decoded.encoding, decoded.replaced) == ("utf-8", 1)
    assert decoded.text == text + "caf\ufffd\n"


def test_a_bad_byte_in_gbk_text_is_replaced_not_misread() -> None:
    data = ZH.encode("gbk") + b"\xff" + ZH.encode("gbk")
    decoded = decode_bytes(data)
    assert decoded.encoding == "gb18030"
    assert decoded.replaced == 1
    assert decoded.text.replace("\ufffd", "") == ZH + ZH


def test_long_file_sample_cut_does_not_split_characters() -> None:
    # The detector sees a sample; the cut must not land inside a double-byte character.
    text = ZH * 400
    decoded = decode_bytes(text.encode("gbk"), sample_size=4097)
    _same(decoded, text)


class TestOverride:
    def test_override_is_used_with_full_confidence(self) -> None:
        decoded = decode_bytes(ZH.encode("gbk"), encoding="GBK")
        _same(decoded, ZH)
        assert (decoded.encoding, decoded.confidence) == ("gbk", 1.0)

    def test_wrong_override_replaces_instead_of_raising(self) -> None:
        decoded = decode_bytes(ZH.encode("gbk"), encoding="utf-8")
        assert decoded.encoding == "utf-8"
        assert decoded.replaced > 0

    def test_override_skips_the_binary_check(self) -> None:
        assert decode_bytes(b"a\x00b", encoding="latin-1").text == "a\x00b"

    def test_utf8_override_drops_a_bom(self) -> None:
        assert decode_bytes(codecs.BOM_UTF8 + b"abc", encoding="utf8").text == "abc"

    def test_unknown_override_is_a_lookup_error(self) -> None:
        with pytest.raises(LookupError):
            decode_bytes(b"abc", encoding="no-such-codec")


class TestBinary:
    def test_nul_bytes(self) -> None:
        with pytest.raises(BinaryContent) as info:
            decode_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8)
        assert "NUL" in info.value.reason

    def test_control_characters(self) -> None:
        data = bytes(random.Random(1).choice(range(1, 9)) for _ in range(2000)) + b"text"
        with pytest.raises(BinaryContent):
            decode_bytes(data)

    def test_random_bytes(self) -> None:
        with pytest.raises(BinaryContent):
            decode_bytes(random.Random(7).randbytes(64 * 1024))

    def test_os_urandom_like_noise(self) -> None:
        with pytest.raises(BinaryContent):
            decode_bytes(os.urandom(4096))


def test_plausibility_separates_text_from_mojibake() -> None:
    for text in (ZH, ZH_TW, JA, KO, EN):
        assert plausibility(text) > 0.55, text
    for text, wrong in ((ZH, "cp950"), (ZH_TW, "gb18030"), (ZH, "cp949"), (ZH, "cp932")):
        mojibake = text.encode("gbk" if text is ZH else "big5").decode(wrong, errors="replace")
        assert plausibility(mojibake) < 0.3, wrong


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.binary(max_size=2048))
def test_random_bytes_only_ever_raise_binary_content(data: bytes) -> None:
    try:
        decoded = decode_bytes(data)
    except BinaryContent:
        return
    assert isinstance(decoded.text, str)
    assert decoded.replaced >= 0
    assert 0.0 <= decoded.confidence <= 1.0


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=200),
       st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32"]))
def test_unicode_text_round_trips(text: str, codec: str) -> None:
    assume("\x1b" not in text and "~{" not in text)  # 7-bit escape encodings are detected
    # Without a BOM, NUL bytes mean UTF-16/32 or binary: "0\x00" *is* "0" in UTF-16 LE.
    assume(codec != "utf-8" or "\x00" not in text)
    # UTF-16 LE of a text that starts with U+0000 begins FF FE 00 00, which is also the UTF-32
    # LE byte-order mark: the bytes mean both, and the decoder's reading (UTF-32, whose BOM is
    # the longer match) is as right as the other. No document starts with a NUL character.
    assume(codec != "utf-16" or not text.startswith("\x00"))
    try:
        decoded = decode_bytes(text.encode(codec))
    except BinaryContent:
        # NUL or control-heavy text is binary by design; a BOM skips that check
        assert codec == "utf-8"
        return
    assert decoded.text == text
    assert decoded.replaced == 0
    if codec != "utf-8":
        assert decoded.confidence == 1.0
