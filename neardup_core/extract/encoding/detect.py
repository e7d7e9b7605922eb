"""Turning the bytes of a text file of unknown encoding into text, and saying how sure we are.

Decisions, first match wins:

1. An explicit ``encoding`` (the user's manual override): decoded with it, confidence 1.0.
2. A byte-order mark: UTF-8, UTF-32 LE/BE (tested before UTF-16, whose BOM is a prefix of
   UTF-32 LE's), UTF-16 LE/BE. Confidence 1.0.
3. Data with NUL bytes: BOM-less UTF-32 / UTF-16 when the sample decodes strictly into
   plausible text (see :func:`plausibility`) in one of them.
4. Binary: any other NUL byte, or more than 10 % control bytes, raises :class:`BinaryContent`
   (unless it decodes as BOM-less UTF-16 into mostly CJK text that reads like text: such
   text has no NUL byte but many bytes under 0x20).
5. Strict UTF-8 (pure ASCII counts as UTF-8, except 7-bit ISO-2022 / HZ text, which is handed
   to the detector). UTF-8 with a few bad bytes among many good multi-byte characters is
   UTF-8 with replacements (confidence 0.5), not a legacy code page.
6. Clear CJK text, without chardet: when many of the sample's bytes are >= 0x80 and one of
   GB18030, CP950, CP932, EUC-JP, CP949 reads it as plausible CJK text that scores far above
   every other reading (the other CJK code pages, CP1252, UTF-16), steps 8-9 would end on that
   reading anyway, and chardet is what costs milliseconds on CJK text. Anything doubtful goes
   on: short or mixed samples, close scores, readings that are not mostly CJK characters, kana
   or Hangul read in a Chinese code page, Big5 that CP950 and Big5-HKSCS read differently.
7. ASCII text whose few other bytes are all punctuation that every Windows-125x code page
   reads alike (curly quotes, dashes, ellipsis...), used as punctuation (not inside words, as
   DOS and Mac letters at those codes are), in a sample of at least 1000 bytes: CP1252 without
   chardet, whose language models have nothing to tell the code pages apart on. Accented
   letters are left to chardet: there CP1250, ISO-8859-15 or a DOS code page may win.
8. chardet on a sample cut where no multi-byte character can be split. If it is sure (>= 0.7)
   and its codec decodes the whole file strictly, that is the answer. chardet's verdict is
   computed by :mod:`.accelerator`: the same encoding and confidence, several times sooner.
9. Otherwise a set of candidates (chardet's pick, UTF-8, GB18030, CP950, Big5-HKSCS, CP932,
   EUC-JP, CP949, CP1252, UTF-16 LE/BE) is decoded strictly and scored by
   :func:`plausibility`: the share of characters that real text is made of (frequent CJK
   ideographs and Hangul, kana, letters, punctuation), minus penalties for control,
   private-use and unassigned characters and for ideographs glued to Latin letters. chardet
   is often wrong on short CJK text; mojibake between GBK, Big5, EUC-KR and EUC-JP decodes
   without error but never has the frequency profile of real text, which the score measures.
   Candidates are bounded cheaply first and only those that could be the winner or a close
   runner-up are scored exactly, so the outcome is that of scoring them all. The best one is
   found first, scoring candidates by falling upper bound until no other can beat it; only
   when it does not decode the whole file are the runners-up scored.

Steps 6 and 7 are shortcuts, not new rules: checked against steps 8-9 on real corpora
(Chinese laws and news, detector test suites, generated scan folders, and their first 33 to
4096 bytes) and on a quarter of a million re-encoded samples, they give the same codec and text
every time. Their confidence is the scorer's (at most 0.9), not chardet's.

Fallback: a candidate that does not decode strictly is scored on its ``errors="replace"``
decoding minus a penalty, so a strict decoding wins unless it reads like mojibake. When the
winner does not decode the whole file strictly (and no close runner-up does), the whole file is
decoded with ``errors="replace"`` and :attr:`Decoded.replaced` counts the U+FFFD characters that
decoding introduced (not those already in the text); confidence is then at most 0.5. A
character cut off at the very end of the data (a truncated file, or a read limit) is one
replacement, not a reason to reject the codec. If chardet says binary and nothing decodes
strictly, :class:`BinaryContent` is raised. Only :class:`BinaryContent` is ever raised for
content; an unknown override name raises ``LookupError`` (a caller mistake, not a property of
the file).

Codec names are Python's canonical ones (``codecs.lookup(name).name``). Subsets are decoded
with their supersets: GB2312 and GBK as ``gb18030``; Big5 as ``cp950`` (Microsoft's Big5, what
Windows writes: all of Big5 plus the euro sign and the ETEN extensions), falling back to
``big5hkscs`` for Hong Kong supplementary characters; Shift_JIS as ``cp932``; EUC-KR as
``cp949``; ISO-8859-1 as ``cp1252`` when that decodes.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from neardup_core.extract.common import BinaryContent
from neardup_core.extract.encoding.accelerator import detect as detect_like_chardet
from neardup_core.extract.encoding.candidates import (
    SCORE_SAMPLE,
    safe_cut,
    score_candidates,
    score_head,
    strict_decode,
    top_candidate,
)
from neardup_core.extract.encoding.plausibility import (
    CJK_CHAR,
    cp1252_ceiling,
    plausibility,
    quick_plausibility,
    script_counts,
)

__all__ = ["BinaryContent", "Decoded", "decode_bytes"]


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str
    encoding: str       # Python codec name that re-decodes the same bytes to the same text
    confidence: float   # 1.0 for a BOM or an override; the detector's or the scorer's otherwise
    replaced: int       # U+FFFD characters introduced by decoding


_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

#: chardet at or above this is trusted when its codec decodes strictly.
SURE = 0.7
#: chardet at or above this breaks ties between candidates that score alike (single-byte code
#: pages decode each other's letters into letters; only its language model tells them apart).
TIE_BREAK = 0.15
#: Text with more control bytes than this share of the sample is taken for binary.
MAX_CONTROL_SHARE = 0.10

#: Legacy data with at least this many bytes >= 0x80, making up at least CJK_MIN_SHARE of the
#: sample, is first read as Chinese, Japanese or Korean without asking chardet...
CJK_MIN_HIGH = 24
CJK_MIN_SHARE = 0.3
#: ...and taken when one reading scores at least CJK_SURE, CJK_MARGIN more than any other, and
#: at least CJK_SCRIPT_SHARE of its non-ASCII characters are CJK ideographs, kana, Hangul or
#: CJK punctuation (GB18030 also encodes Thai, Cyrillic...: such text goes to chardet).
CJK_SURE = 0.55
CJK_MARGIN = 0.15
CJK_SCRIPT_SHARE = 0.8
#: A Chinese reading (GB18030, Big5) with more kana and Hangul than this share of its CJK
#: characters is Japanese or Korean text in a Chinese code page, or the other way round: chardet.
CJK_FOREIGN_SHARE = 0.05
#: ASCII data of at least this many bytes, with at most WESTERN_MAX_SHARE of other bytes, all
#: of them punctuation that every Windows-125x code page reads alike, is CP1252 without chardet.
WESTERN_MIN_BYTES = 1000
WESTERN_MAX_SHARE = 0.05

# Control bytes that text never has. Kept out: \t \n \v \f \r, SO/SI and ESC (ISO-2022),
# SUB (0x1a, the DOS end-of-file mark).
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13, 14, 15, 26, 27)) + b"\x7f"
_NOT_CONTROL = bytes(b for b in range(256) if b not in _CONTROL)

# Superset chains: what a detected codec is decoded as, in order of preference.
_SUPERSETS: dict[str, tuple[str, ...]] = {
    "ascii": ("utf-8",),
    "gb2312": ("gb18030",),
    "gbk": ("gb18030",),
    "gb18030": ("gb18030",),
    "big5": ("cp950", "big5hkscs"),
    "cp950": ("cp950", "big5hkscs"),
    "big5hkscs": ("cp950", "big5hkscs"),
    "shift_jis": ("cp932", "shift_jis"),
    "cp932": ("cp932", "shift_jis"),
    "euc_kr": ("cp949",),
    "cp949": ("cp949",),
    "iso8859-1": ("cp1252", "iso8859-1"),
    "iso8859-9": ("cp1254", "iso8859-9"),
    "tis-620": ("cp874", "tis-620"),
    "iso8859-11": ("cp874", "iso8859-11"),
    "shift_jis_2004": ("cp932", "shift_jis_2004"),
    "shift_jisx0213": ("cp932", "shift_jisx0213"),
    "euc_jp": ("euc_jp", "euc_jis_2004"),
    "euc_jis_2004": ("euc_jp", "euc_jis_2004"),
}
_CANDIDATES = ("utf-8", "gb18030", "cp950", "big5hkscs", "cp932", "euc_jp", "cp949", "cp1252",
               "utf-16-le", "utf-16-be")  # CJK-only UTF-16 has no NUL bytes to give it away
_EBCDIC = frozenset({"cp037", "cp273", "cp424", "cp500", "cp875", "cp1026", "cp1140"})
_ESCAPE_CODECS = frozenset({"iso2022_jp", "iso2022_jp_1", "iso2022_jp_2", "iso2022_jp_2004",
                            "iso2022_jp_3", "iso2022_jp_ext", "iso2022_kr", "hz"})


def decode_bytes(data: bytes, *, encoding: str | None = None,
                 sample_size: int = 64 * 1024) -> Decoded:
    """Decode ``data``; see the module docstring for the order of decisions and the fallback."""
    if encoding is not None:
        return _decode_override(data, encoding)
    for bom, codec in _BOMS:
        if not data.startswith(bom):
            continue
        if codec == "utf-32":
            # FF FE 00 00 may also be a UTF-16 LE BOM and a NUL character.
            strict = strict_decode(data, codec) if len(data) % 4 == 0 else None
            if strict is None and strict_decode(data, "utf-16") is not None:
                continue
            text, replaced = strict or _decode_tolerant(data, codec)
            return Decoded(text, codec, 1.0, replaced)
        text, replaced = _decode_tolerant(data, codec)
        return Decoded(text, codec, 1.0, replaced)
    sample = data[:sample_size]
    if b"\x00" in sample:
        wide = _decode_wide(data, sample)
        if wide is not None:
            return wide
        raise BinaryContent("it contains NUL bytes, so it is binary data, not text")
    if sample and len(sample.translate(None, _NOT_CONTROL)) > MAX_CONTROL_SHARE * len(sample):
        wide = _cjk_utf16(data, sample)
        if wide is not None:
            return wide
        raise BinaryContent("it is mostly control characters, so it is binary data, not text")
    utf8 = strict_decode(data, "utf-8")
    if utf8 is not None:
        if data.isascii() and (b"\x1b" in sample or b"~{" in sample):
            escaped = _escape_encoding(data, sample)
            if escaped is not None:
                return escaped
        return Decoded(utf8[0], "utf-8", 1.0 if data.isascii() else 0.99, utf8[1])
    sample = safe_cut(sample, len(data))
    if _almost_utf8(sample):
        text, replaced = _decode_tolerant(data, "utf-8")
        return Decoded(text, "utf-8", 0.5, replaced)
    return _detect(data, sample)


_NEVER_UTF8 = bytes([0xC0, 0xC1, *range(0xF5, 0x100)])
_UTF8_LEADS = bytes(range(0xC2, 0xF5))


def _almost_utf8(sample: bytes) -> bool:
    """UTF-8 with a few bad bytes (a damaged file, a stray Latin-1 byte): not a legacy codec.

    Legacy CJK text read as UTF-8 fails on most of its characters, so a handful of errors
    among many valid multi-byte sequences means damage, not another encoding.
    """
    # Each byte UTF-8 never uses is one replacement at least, and each good multi-byte character
    # has one lead byte: when leads are too few, the answer is no without decoding (which is
    # slow when most bytes are errors, as in legacy CJK text).
    never = len(sample) - len(sample.translate(None, _NEVER_UTF8))
    if never and len(sample) - len(sample.translate(None, _UTF8_LEADS)) < 50 * never:
        return False
    text = sample.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - sample.decode("utf-8", errors="ignore").count("\ufffd")
    wide = len(text) - len(text.encode("ascii", errors="ignore")) - bad
    return bad > 0 and wide >= 50 * bad


def _decode_override(data: bytes, encoding: str) -> Decoded:
    codec = codecs.lookup(encoding).name  # LookupError for an unknown name, on purpose
    if codec == "utf-8" and data.startswith(codecs.BOM_UTF8):
        codec = "utf-8-sig"
    text, replaced = _decode_tolerant(data, codec)
    return Decoded(text, codec, 1.0, replaced)


def _decode_tolerant(data: bytes, codec: str) -> tuple[str, int]:
    """Strict if possible; otherwise replacement characters, counting only the new ones."""
    strict = strict_decode(data, codec)
    if strict is not None:
        return strict
    text = data.decode(codec, errors="replace")
    already = data.decode(codec, errors="ignore").count("\ufffd")
    return text, text.count("\ufffd") - already


def _decode_wide(data: bytes, sample: bytes) -> Decoded | None:
    """BOM-less UTF-32 / UTF-16, told apart from binary by reading like text.

    UTF-32 shows as NUL-filled high bytes; UTF-16 may have NULs on either side (ASCII has them
    in its high byte, CJK characters such as U+5F00 in their low byte), so both byte orders are
    tried and the decoding must be plausible text, which binary read as UTF-16 never is.
    """
    n = len(sample)
    guesses: list[str] = []
    q = n - n % 4
    if q >= 4:
        units = q // 4
        b0, b1, b2, b3 = (sample[i:q:4] for i in range(4))
        if b3.count(0) == units and b2.count(0) >= 0.9 * units:
            guesses.append("utf-32-le")
        if b0.count(0) == units and b1.count(0) >= 0.9 * units:
            guesses.append("utf-32-be")
    guesses += ["utf-16-le", "utf-16-be"]
    best: tuple[float, str] | None = None
    for codec in guesses:
        head = strict_decode(sample[: n - n % (4 if codec.startswith("utf-32") else 2)], codec)
        if head is None or not head[0].strip():
            continue
        text = head[0][:SCORE_SAMPLE]
        score = plausibility(text)
        if score >= _wide_text_floor(text) and (best is None or score > best[0]):
            best = (score, codec)
    if best is None:
        return None
    text, replaced = _decode_tolerant(data, best[1])
    return Decoded(text, best[1], round(min(0.9, best[0]), 3), replaced)


#: Plausibility a BOM-less UTF-16/32 reading needs to be taken for text rather than binary.
#: Binary read as UTF-16 can look like letters of many scripts, each weighing 0.5, and score
#: nearly that.
WIDE_TEXT = 0.5
#: ... when mostly CJK (CJK_SHARE of its characters): binary read as UTF-16 gives rare
#: ideographs then, which weigh nothing, so a lower bar is as safe and lets short Chinese
#: through (a news item of uncommon names scores 0.43; at 0.5, 5 in 400 were called binary).
WIDE_CJK_TEXT = 0.4


def _wide_text_floor(text: str) -> float:
    letters = "".join(text.split())
    cjk = len(CJK_CHAR.findall(letters))
    return WIDE_CJK_TEXT if letters and cjk >= CJK_SHARE * len(letters) else WIDE_TEXT

#: BOM-less UTF-16 without NUL bytes is taken for CJK text only from this many characters on,
#: when at least CJK_SHARE of them are CJK and the whole reads like text.
CJK_UTF16_MIN_CHARS = 4
CJK_SHARE = 0.6


def _cjk_utf16(data: bytes, sample: bytes) -> Decoded | None:
    """BOM-less UTF-16 of CJK text has no NUL byte but many bytes under 0x20 (U+5404 is
    04 54), so it looks like control-heavy binary. It is text when it decodes strictly into
    mostly CJK characters that read like text; short or mixed data stays binary.

    Bytes that are valid UTF-8 with multi-byte characters in it are not taken for it: UTF-16
    of CJK text puts bytes 0x80-0x9F (UTF-8 continuation bytes) where no lead byte comes
    before them, so it is valid UTF-8 only by a chance that vanishes after a few characters,
    while a short UTF-8 note with a control character in it ("0\x08¬...") read as UTF-16
    became four unrelated ideographs. All-ASCII bytes can still be UTF-16 CJK (U+4E2D is
    2D 4E) and are judged as before."""
    if len(data) % 2 or len(data) < 2 * CJK_UTF16_MIN_CHARS:
        return None
    if not data.isascii() and strict_decode(data, "utf-8") is not None:
        return None
    head = sample[: len(sample) - len(sample) % 2]
    best: tuple[float, str] | None = None
    for codec in ("utf-16-le", "utf-16-be"):
        got = strict_decode(head, codec)
        if got is None:
            continue
        text = "".join(got[0].split())
        if not text or len(CJK_CHAR.findall(text)) < CJK_SHARE * len(text):
            continue
        score = plausibility(text[:SCORE_SAMPLE])
        if score >= WIDE_CJK_TEXT and (best is None or score > best[0]):
            best = (score, codec)
    if best is None:
        return None
    text, replaced = _decode_tolerant(data, best[1])
    return Decoded(text, best[1], round(min(0.9, best[0]), 3), replaced)


def _escape_encoding(data: bytes, sample: bytes) -> Decoded | None:
    """7-bit ISO-2022-JP/KR and HZ text is valid ASCII; only the detector can tell."""
    found, confidence = detect_like_chardet(sample)
    name = _canonical(found)
    if name in _ESCAPE_CODECS:
        strict = strict_decode(data, name)
        if strict is not None:
            return Decoded(strict[0], name, confidence, strict[1])
    return None


def _canonical(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _detect(data: bytes, sample: bytes) -> Decoded:
    shortcut = _cjk_shortcut(data, sample) or _western_shortcut(data, sample)
    if shortcut is not None:
        return shortcut
    # Not prefer_superset: chardet 7 would turn ISO-8859-2/5/6 into windows code pages that
    # map letters differently. The few true supersets are applied by _SUPERSETS.
    name, confidence = detect_like_chardet(sample)
    detected = _canonical(name)
    chain = _SUPERSETS.get(detected, (detected,)) if detected else ()
    if confidence >= SURE:
        for codec in chain:
            strict = strict_decode(data, codec)
            if strict is not None:
                return Decoded(strict[0], codec, round(confidence, 3), strict[1])

    # chardet unsure, or its codec does not fit: score candidates on a sample.
    trusted = chain if confidence >= TIE_BREAK else ()
    # A wild guess at an EBCDIC code page turns any bytes into Latin letters: never a candidate.
    late = () if detected in _EBCDIC else chain
    order = list(dict.fromkeys([*trusted, *_CANDIDATES, *late]))
    head = score_head(sample)
    top, _, best, best_strict = top_candidate(head, order, trusted)
    if detected is None and not best_strict:
        raise BinaryContent("it does not decode as text in any known encoding")
    full = strict_decode(data, best) if best_strict else None
    if full is not None:   # the usual case, and the first the loop below would try
        conf = max(confidence if best in chain else 0.0, min(0.9, max(0.05, top)))
        return Decoded(full[0], best, round(conf, 3), full[1])
    scored = score_candidates(head, order, trusted)
    scored.sort(reverse=True)
    # The best-scoring codec wins if it decodes the whole file; a close runner-up that does may
    # stand in for it. A far worse one would be mojibake: better a few U+FFFD.
    for score, _, codec, ok in scored:
        if score < top - 0.1:
            break
        full = strict_decode(data, codec) if ok else None
        if full is not None:
            conf = max(confidence if codec in chain else 0.0, min(0.9, max(0.05, score)))
            return Decoded(full[0], codec, round(conf, 3), full[1])
    text, replaced = _decode_tolerant(data, best)
    return Decoded(text, best, round(min(0.5, max(0.01, top / 2)), 3), replaced)


# -- shortcuts that decide without chardet ---------------------------------------------------

_HIGH = bytes(range(0x80, 0x100))
_LOW = bytes(range(0x80))
# Multi-byte code pages that decode each other's bytes without error, each with what chardet's
# pick would be decoded as when it does not fit (_SUPERSETS).
_CJK_FAMILIES: tuple[tuple[str, ...], ...] = (
    ("gb18030",), ("cp950", "big5hkscs"), ("cp932",), ("euc_jp",), ("cp949",))
_CHINESE = frozenset({"gb18030", "cp950", "big5hkscs"})
# Other readings a CJK one must clearly beat before chardet is skipped.
_CJK_RIVALS = ("cp1252", "utf-16-le", "utf-16-be")


def _cjk_shortcut(data: bytes, sample: bytes) -> Decoded | None:
    """Chinese, Japanese or Korean text that reads clearly in exactly one legacy code page.

    chardet costs milliseconds on CJK text (its bigram models score every code page) and, when
    unsure, the scoring of every candidate follows. When one CJK reading is plausible CJK text
    and every other reading of the same bytes (other CJK code pages, CP1252, UTF-16) scores far
    lower, both end on that reading: take it directly. Short samples, close scores, readings
    that are not CJK text, Japanese or Korean read in a Chinese code page, and Big5 that CP950
    and Big5-HKSCS read differently (chardet or the scores pick between them) go on as before.
    """
    high = len(sample) - len(sample.translate(None, _HIGH))
    if high < CJK_MIN_HIGH or high < CJK_MIN_SHARE * len(sample):
        return None
    head = score_head(sample)
    readings: list[tuple[float, str, tuple[str, int]]] = []   # (quick score, codec, decoding)
    for family in _CJK_FAMILIES:
        for codec in family:
            strict = strict_decode(head, codec)
            if strict is not None:
                readings.append((quick_plausibility(strict[0][:SCORE_SAMPLE])[0], codec, strict))
                break
    if not readings:
        return None
    readings.sort(key=lambda reading: reading[0], reverse=True)
    best, codec, strict = readings[0]
    if best < CJK_SURE:
        return None
    others = [reading[0] for reading in readings[1:]]
    for rival in _CJK_RIVALS:
        decoding = strict_decode(head, rival)
        if decoding is None:
            continue
        if rival == "cp1252" and best - cp1252_ceiling(head[:SCORE_SAMPLE]) >= CJK_MARGIN:
            continue   # cannot come close: no need to score it
        others.append(quick_plausibility(decoding[0][:SCORE_SAMPLE])[0])
    if any(best - other < CJK_MARGIN for other in others):
        return None
    if not _reads_as_cjk(strict[0][:SCORE_SAMPLE], chinese=codec in _CHINESE):
        return None
    if codec == "cp950":
        hkscs = strict_decode(head, "big5hkscs")
        if hkscs is None or hkscs[0] != strict[0]:
            return None
    family = next(family for family in _CJK_FAMILIES if codec in family)
    for fit in family[family.index(codec):]:   # as when chardet's pick does not fit
        full = strict if fit == codec and len(head) == len(data) else strict_decode(data, fit)
        if full is not None:
            return Decoded(full[0], fit, round(min(0.9, best), 3), full[1])
    return None


def _reads_as_cjk(text: str, *, chinese: bool) -> bool:
    """Mostly CJK characters (and CJK punctuation); for a Chinese code page, hardly any kana or
    Hangul."""
    ascii_, _, ideographs, kana_hangul, punctuation = script_counts(text)
    cjk = ideographs + kana_hangul
    if cjk + punctuation < CJK_SCRIPT_SHARE * (len(text) - ascii_):
        return False
    return not chinese or kana_hangul <= CJK_FOREIGN_SHARE * cjk


def _windows_punctuation() -> bytes:
    """Bytes that every Windows-125x code page reads as the same punctuation or symbol, less
    those that are letters DOS text often has (CP437/CP850: e-acute, a-umlaut, c-cedilla...)
    and that Windows text seldom does (single low quote, dagger, per mille...)."""
    pages = ("cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257",
             "cp1258")
    dos_letters = b"\x82\x84\x86\x87\x89\x8b\x9b"
    same = bytearray()
    for b in range(0x80, 0x100):
        chars = {bytes([b]).decode(page, errors="replace") for page in pages}
        if (len(chars) == 1 and not chars <= {"\ufffd"} and not "".join(chars).isalpha()
                and b not in dos_letters):
            same.append(b)
    return bytes(same)


# Curly quotes, dashes, ellipsis, bullet, trade mark, no-break space, (c), degree, guillemets...
_WESTERN_PUNCTUATION = _windows_punctuation()
# How these bytes sit in Windows text and not in DOS or Mac text, where they are letters: never
# inside an ASCII word (except the apostrophe and dashes: it’s, word—word) nor three in a row.
_LETTER_LIKE = re.compile(rb"[A-Za-z][\x80-\x91\x93-\x95\x98-\xff][A-Za-z]|[\x80-\xff]{3}")


def _western_shortcut(data: bytes, sample: bytes) -> Decoded | None:
    """English (or any ASCII) text whose only other bytes are Windows punctuation: CP1252.

    Every Windows-125x code page reads these bytes as the same characters, so the language
    models chardet uses to tell CP1250 from CP1252 have nothing to work on; on samples this
    long, with these bytes used as punctuation, it and the scoring both end on CP1252. Shorter
    samples go to chardet, which there sometimes prefers a DOS or Mac code page.
    """
    if len(sample) < WESTERN_MIN_BYTES:
        return None
    others = data.translate(None, _LOW)
    if (not others or len(others) > WESTERN_MAX_SHARE * len(data)
            or others.translate(None, _WESTERN_PUNCTUATION) or _LETTER_LIKE.search(data)):
        return None
    text = data.decode("cp1252")  # cannot fail: every byte is ASCII or in the table
    return Decoded(text, "cp1252", round(min(0.9, plausibility(text[:SCORE_SAMPLE])), 3), 0)
