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
6. chardet on a sample cut where no multi-byte character can be split. If it is sure (>= 0.7)
   and its codec decodes the whole file strictly, that is the answer.
7. Otherwise a set of candidates (chardet's pick, UTF-8, GB18030, CP950, Big5-HKSCS, CP932,
   EUC-JP, CP949, CP1252, UTF-16 LE/BE) is decoded strictly and scored by
   :func:`plausibility`: the share of characters that real text is made of (frequent CJK
   ideographs and Hangul, kana, letters, punctuation), minus penalties for control,
   private-use and unassigned characters and for ideographs glued to Latin letters. chardet
   is often wrong on short CJK text; mojibake between GBK, Big5, EUC-KR and EUC-JP decodes
   without error but never has the frequency profile of real text, which the score measures.

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
import unicodedata
from collections import Counter
from dataclasses import dataclass

import chardet

from ._frequent import FREQUENT
from .common import BinaryContent

__all__ = ["BinaryContent", "Decoded", "decode_bytes", "plausibility"]


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
#: What failing to decode strictly costs a candidate's score: a decoding with a few U+FFFD beats
#: a strict one only when the strict one reads like mojibake.
NOT_STRICT = 0.2
#: Text with more control bytes than this share of the sample is taken for binary.
MAX_CONTROL_SHARE = 0.10
#: Characters of a candidate decoding that are scored (enough for a stable share, and fast).
SCORE_SAMPLE = 16 * 1024

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
            strict = _strict(data, codec) if len(data) % 4 == 0 else None
            if strict is None and _strict(data, "utf-16") is not None:
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
    utf8 = _strict(data, "utf-8")
    if utf8 is not None:
        if data.isascii() and (b"\x1b" in sample or b"~{" in sample):
            escaped = _escape_encoding(data, sample)
            if escaped is not None:
                return escaped
        return Decoded(utf8[0], "utf-8", 1.0 if data.isascii() else 0.99, utf8[1])
    sample = _safe_cut(sample, len(data))
    if _almost_utf8(sample):
        text, replaced = _decode_tolerant(data, "utf-8")
        return Decoded(text, "utf-8", 0.5, replaced)
    return _detect(data, sample)


def _almost_utf8(sample: bytes) -> bool:
    """UTF-8 with a few bad bytes (a damaged file, a stray Latin-1 byte): not a legacy codec.

    Legacy CJK text read as UTF-8 fails on most of its characters, so a handful of errors
    among many valid multi-byte sequences means damage, not another encoding.
    """
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


def _strict(data: bytes, codec: str) -> tuple[str, int] | None:
    """Strict decoding that forgives only an incomplete last character (counted as replaced).

    Returns None when the codec does not fit the data.
    """
    decoder = codecs.getincrementaldecoder(codec)(errors="strict")
    try:
        text = decoder.decode(data, final=False)
        pending = decoder.getstate()[0]
        if pending:
            try:
                return text + decoder.decode(b"", final=True), 0
            except UnicodeDecodeError:
                return text + "\ufffd", 1
        return text, 0
    except (UnicodeDecodeError, UnicodeError):
        return None


def _decode_tolerant(data: bytes, codec: str) -> tuple[str, int]:
    """Strict if possible; otherwise replacement characters, counting only the new ones."""
    strict = _strict(data, codec)
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
        head = _strict(sample[: n - n % (4 if codec.startswith("utf-32") else 2)], codec)
        if head is None or not head[0].strip():
            continue
        score = plausibility(head[0][:SCORE_SAMPLE])
        if score >= 0.5 and (best is None or score > best[0]):
            best = (score, codec)
    if best is None:
        return None
    text, replaced = _decode_tolerant(data, best[1])
    return Decoded(text, best[1], round(min(0.9, best[0]), 3), replaced)


#: BOM-less UTF-16 without NUL bytes is taken for CJK text only from this many characters on,
#: when at least CJK_SHARE of them are CJK and the whole reads like text.
CJK_UTF16_MIN_CHARS = 4
CJK_SHARE = 0.6


def _cjk_utf16(data: bytes, sample: bytes) -> Decoded | None:
    """BOM-less UTF-16 of CJK text has no NUL byte but many bytes under 0x20 (U+5404 is
    04 54), so it looks like control-heavy binary. It is text when it decodes strictly into
    mostly CJK characters that read like text; short or mixed data stays binary."""
    if len(data) % 2 or len(data) < 2 * CJK_UTF16_MIN_CHARS:
        return None
    head = sample[: len(sample) - len(sample) % 2]
    best: tuple[float, str] | None = None
    for codec in ("utf-16-le", "utf-16-be"):
        got = _strict(head, codec)
        if got is None:
            continue
        text = "".join(got[0].split())
        if not text or len(_CJK_CHAR.findall(text)) < CJK_SHARE * len(text):
            continue
        score = plausibility(text[:SCORE_SAMPLE])
        if score >= 0.6 and (best is None or score > best[0]):
            best = (score, codec)
    if best is None:
        return None
    text, replaced = _decode_tolerant(data, best[1])
    return Decoded(text, best[1], round(min(0.9, best[0]), 3), replaced)


def _escape_encoding(data: bytes, sample: bytes) -> Decoded | None:
    """7-bit ISO-2022-JP/KR and HZ text is valid ASCII; only the detector can tell."""
    found = chardet.detect(sample, compat_names=False, max_bytes=max(1, len(sample)))
    name = _canonical(found.get("encoding"))
    if name in _ESCAPE_CODECS:
        strict = _strict(data, name)
        if strict is not None:
            return Decoded(strict[0], name, float(found.get("confidence") or 0.0), strict[1])
    return None


def _safe_cut(sample: bytes, total: int) -> bytes:
    """Cut a sample after a byte below 0x40: never a trail byte of GBK, Big5, Shift_JIS..."""
    if len(sample) >= total:
        return sample
    for i in range(len(sample) - 1, max(-1, len(sample) - 1024), -1):
        if sample[i] < 0x40:
            return sample[: i + 1]
    return sample


def _canonical(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _detect(data: bytes, sample: bytes) -> Decoded:
    # Not prefer_superset: chardet 7 would turn ISO-8859-2/5/6 into windows code pages that
    # map letters differently. The few true supersets are applied by _SUPERSETS.
    found = chardet.detect(sample, compat_names=False, max_bytes=max(1, len(sample)))
    detected = _canonical(found.get("encoding"))
    confidence = float(found.get("confidence") or 0.0)
    chain = _SUPERSETS.get(detected, (detected,)) if detected else ()
    if confidence >= SURE:
        for codec in chain:
            strict = _strict(data, codec)
            if strict is not None:
                return Decoded(strict[0], codec, round(confidence, 3), strict[1])

    # chardet unsure, or its codec does not fit: score candidates on a sample.
    trusted = chain if confidence >= TIE_BREAK else ()
    # A wild guess at an EBCDIC code page turns any bytes into Latin letters: never a candidate.
    late = () if detected in _EBCDIC else chain
    order = list(dict.fromkeys([*trusted, *_CANDIDATES, *late]))
    head = sample[: SCORE_SAMPLE * 2]
    if len(head) < len(sample):
        head = _safe_cut(head, len(sample))
    scored: list[tuple[float, int, str, bool]] = []
    for rank, codec in enumerate(order):
        strict = _strict(head, codec)
        text = strict[0] if strict is not None else head.decode(codec, errors="replace")
        score = plausibility(text[:SCORE_SAMPLE])
        if codec in trusted:
            score += 0.05
        if strict is None:
            score -= NOT_STRICT
        scored.append((score, -rank, codec, strict is not None))
    scored.sort(reverse=True)
    top, _, best, best_strict = scored[0]
    if detected is None and not best_strict:
        raise BinaryContent("it does not decode as text in any known encoding")
    # The best-scoring codec wins if it decodes the whole file; a close runner-up that does may
    # stand in for it. A far worse one would be mojibake: better a few U+FFFD.
    for score, _, codec, ok in scored:
        if score < top - 0.1:
            break
        full = _strict(data, codec) if ok else None
        if full is not None:
            conf = max(confidence if codec in chain else 0.0, min(0.9, max(0.05, score)))
            return Decoded(full[0], codec, round(conf, 3), full[1])
    text, replaced = _decode_tolerant(data, best)
    return Decoded(text, best, round(min(0.5, max(0.01, top / 2)), 3), replaced)


# -- the plausibility score ----------------------------------------------------------------

_CJK_CLASS = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3\uf900-\ufaff\U00020000-\U0010ffff"
#: An ideograph, kana or Hangul syllable glued to a Latin letter, either way round (counted with a
#: lookahead so "a中b" counts twice).
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
_GLUED = re.compile(f"(?=[A-Za-z][{_CJK_CLASS}]|[{_CJK_CLASS}][A-Za-z])")


def _char_weight(c: str) -> float:
    if c in FREQUENT:
        return 1.0
    o = ord(c)
    if o < 0x80:
        if c.isalnum():
            return 1.0
        if c.isprintable():
            return 0.5
        return 0.0 if c in "\x1a\x1b\x0e\x0f" else -2.0
    if o < 0xA0 or 0xE000 <= o <= 0xF8FF or o == 0xFFFD or 0xD800 <= o <= 0xDFFF:
        return -2.0
    if 0x3040 <= o <= 0x30FF:              # hiragana, katakana
        return 0.6
    if 0x4E00 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7A3:
        return 0.0                         # valid but not frequent ideograph / Hangul
    if 0x3000 <= o <= 0x303F or 0xFF01 <= o <= 0xFF5E:
        return 0.8                         # CJK punctuation, full-width ASCII
    if 0xFF61 <= o <= 0xFF9F:
        return -0.5                        # half-width katakana: Shift_JIS misreadings
    if 0x3400 <= o <= 0x4DBF or 0xF900 <= o <= 0xFAFF or o >= 0x20000:
        return -0.5                        # rare or compatibility ideographs
    cat = unicodedata.category(c)
    if cat in ("Cn", "Co", "Cs", "Cc"):
        return -2.0
    if cat[0] in "LNPM":
        return 0.5
    return 0.0


def plausibility(text: str) -> float:
    """How much ``text`` looks like human writing: about 0.6-1.0 for real text, below 0.3 for
    mojibake. Whitespace is not counted; an ideograph next to a Latin letter costs a point."""
    counts = Counter(text)
    total = 0
    score = 0.0
    for ch, n in counts.items():
        if ch.isspace():
            continue
        total += n
        score += n * _char_weight(ch)
    if not total:
        return 1.0
    glued = sum(1 for _ in _GLUED.finditer(text))
    return (score - glued) / total
