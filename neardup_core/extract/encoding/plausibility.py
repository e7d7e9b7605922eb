"""The plausibility score: how much decoded text reads like real writing.

Mojibake between legacy code pages (GBK read as Big5, EUC-KR as EUC-JP, Chinese as CP1252...)
decodes without error, so the detector (:mod:`.detect`) tells readings apart by what they
read like: :func:`plausibility` is the share of characters that real text is made of
(frequent CJK ideographs and Hangul from :mod:`.frequent`, kana, letters, punctuation), minus
penalties for control, private-use and unassigned characters, for ideographs glued to Latin
letters and for runs of U+0080-U+00FF (double-byte text read in a Western code page).

The score is computed from two per-code-point tables kept in the user's cache folder (see
:mod:`neardup_core.tables`); :func:`quick_plausibility` gives it to within
:data:`QUICK_ERROR` (often exactly) without a per-character Python loop, and
:func:`cp1252_ceiling` bounds a CP1252 reading from byte counts alone, so most candidate
readings need no exact score.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter

import numpy as np

from neardup_core.extract.encoding import frequent
from neardup_core.extract.encoding.frequent import FREQUENT
from neardup_core.tables import cached_arrays

__all__ = ["CJK_CHAR", "QUICK_ERROR", "char_weight", "cp1252_ceiling", "plausibility",
           "quick_plausibility", "script_counts"]

#: Ideographs, kana and Hangul, as [start, end) code point ranges.
_CJK_RANGES = ((0x3040, 0x3100), (0x3400, 0xA000), (0xAC00, 0xD7A4), (0xF900, 0xFB00),
               (0x20000, 0x110000))
_CJK_CLASS = "".join(f"{chr(lo)}-{chr(hi - 1)}" for lo, hi in _CJK_RANGES)
#: One ideograph, kana or Hangul syllable.
CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")


def char_weight(c: str) -> float:
    """What one character adds to a text's plausibility: 1.0 for a frequent CJK character
    or an ASCII letter or digit, down to -2.0 for a control or private-use character."""
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


#: Whitespace in the weight table: neither scored nor counted. No weight is -12.5, and -125 is
#: divisible by 5 like the tenths of the multiples of 0.5, so the check for 0.6 and 0.8 weights
#: (tenths % 5) needs no mask.
_SPACE = -125
# Blocks of the BMP where char_weight is one value (FREQUENT aside), filled without calling it.
_UNIFORM = ((0x3400, 0x4DC0, -5), (0x4E00, 0xA000, 0), (0xAC00, 0xD7A4, 0), (0xD800, 0xF900, -20),
            (0xF900, 0xFB00, -5))
# Script classes of the second table.
_ASCII, _OTHER, _IDEOGRAPH, _KANA_HANGUL, _CJK_PUNCTUATION = range(5)
_KANA_HANGUL_RANGES = ((0x3040, 0x3100), (0xAC00, 0xD7A4))
_CJK_PUNCTUATION_RANGES = ((0x3000, 0x3040), (0xFF00, 0xFFF0))


@functools.cache
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """Per BMP code point: ten times :func:`char_weight` (or _SPACE), and its script class.

    Every weight is a multiple of 0.1, so tenths are exact small integers, and ``tenths / 10``
    gives back the very float char_weight returns. Once per process: from the cache folder
    (see :mod:`neardup_core.tables`), or built (about 80 ms).
    """
    def check(a: dict[str, np.ndarray]) -> bool:
        tenths, script = a.get("tenths"), a.get("script")
        return (tenths is not None and script is not None and tenths.dtype == np.int8
                and script.dtype == np.uint8 and tenths.shape == script.shape == (0x10000,))

    def build() -> dict[str, np.ndarray]:
        tenths, script = _build_tables()
        return {"tenths": tenths, "script": script}

    got = cached_arrays("plausibility", [__file__, frequent.__file__], "", build, check)
    tenths, script = got["tenths"], got["script"]
    tenths.flags.writeable = False
    script.flags.writeable = False
    return tenths, script


def _build_tables() -> tuple[np.ndarray, np.ndarray]:
    tenths = np.empty(0x10000, dtype=np.int8)
    todo = np.ones(0x10000, dtype=bool)
    for lo, hi, value in _UNIFORM:
        tenths[lo:hi] = value
        todo[lo:hi] = False
    for o in np.flatnonzero(todo).tolist():
        c = chr(o)
        tenths[o] = _SPACE if c.isspace() else round(char_weight(c) * 10)
    tenths[[ord(c) for c in FREQUENT if not todo[ord(c)]]] = 10
    script = np.full(0x10000, _OTHER, dtype=np.uint8)
    script[:0x80] = _ASCII
    for classes, ranges in ((_IDEOGRAPH, _CJK_RANGES), (_KANA_HANGUL, _KANA_HANGUL_RANGES),
                            (_CJK_PUNCTUATION, _CJK_PUNCTUATION_RANGES)):
        for lo, hi in ranges:
            script[lo:min(hi, 0x10000)] = classes
    tenths.flags.writeable = False
    script.flags.writeable = False
    return tenths, script


@functools.lru_cache(maxsize=4096)
def _astral_tenths(o: int) -> int:
    return round(char_weight(chr(o)) * 10)  # no whitespace beyond the BMP


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def _tenths_of(codes: np.ndarray) -> np.ndarray:
    tenths, _ = _tables()
    if not codes.size or codes.max() < 0x10000:
        return tenths[codes]
    astral = codes >= 0x10000
    out = tenths[np.where(astral, 0, codes)].astype(np.int16)
    distinct, where = np.unique(codes[astral], return_inverse=True)
    out[astral] = np.array([_astral_tenths(int(o)) for o in distinct], dtype=np.int16)[where]
    return out


def _script_of(codes: np.ndarray) -> np.ndarray:
    _, script = _tables()
    if not codes.size or codes.max() < 0x10000:
        return script[codes]
    return np.where(codes >= 0x20000, _IDEOGRAPH,
                    np.where(codes >= 0x10000, _OTHER, script[np.minimum(codes, 0xFFFF)]))


def _penalty(codes: np.ndarray, top: int) -> int:
    """Points off a text's score: :func:`_glued` and :func:`_latin1_runs` (``top``: the largest
    code point, which rules either out cheaply)."""
    points = _glued(codes) if top >= _CJK_RANGES[0][0] else 0
    return points + _latin1_runs(codes) if top >= 0x80 else points


def _latin1_runs(codes: np.ndarray) -> int:
    """Characters that continue a run of three or more from U+0080-U+00FF (the no-break space
    aside).

    That is the shape of double-byte text (GBK, Big5, Shift_JIS...) read in a Western code page:
    every byte of every character becomes one of them, and their symbols and letters weigh
    as much as real accented letters, so on a short text the mojibake outscored the true
    reading ("夏季引援" in GBK read as "ÏÄ¼¾ÒýÔ®"). Western text puts its accented letters
    between ASCII ones; two in a row are common ("ção"), three rare. Cyrillic, Greek, Hebrew
    or Thai text read as CP1252 has the same shape, and its true reading lies elsewhere.
    """
    if codes.shape[0] < 3:
        return 0
    latin1 = ((codes - 0x80) < 0x80) & (codes != 0xA0)   # unsigned wrap-around below 0x80
    return int(np.count_nonzero(latin1[2:] & latin1[1:-1] & latin1[:-2]))


def _glued(codes: np.ndarray) -> int:
    """Latin letters next to an ideograph, kana or Hangul syllable, either way round."""
    latin = ((codes | 0x20) - 0x61) < 26   # A-Z, a-z (unsigned wrap-around does the rest)
    if not latin.any():
        return 0
    script = _script_of(codes)
    cjk = (script == _IDEOGRAPH) | (script == _KANA_HANGUL)
    if not cjk.any():
        return 0
    return int(np.count_nonzero(latin[:-1] & cjk[1:]) + np.count_nonzero(cjk[:-1] & latin[1:]))


#: |quick_plausibility(t) - plausibility(t)| stays below this for texts of up to SCORE_SAMPLE
#: characters (:data:`.candidates.SCORE_SAMPLE`, what the detector scores). plausibility sums
#: k <= N float products n*w (|n*w| <= 2n, so at most 2N in all) in one order; rounding moves
#: that sum by at most k * 2**-53 * 2N < 6e-8 for N = 16384, and the doubles 0.6 and 0.8 differ
#: from 6/10 and 8/10 by under N * 2**-54 in all. The quick score adds exact integers. Dividing
#: by the count (>= 1) only shrinks the difference.
QUICK_ERROR = 1e-6


def quick_plausibility(text: str) -> tuple[float, bool]:
    """:func:`plausibility` to within QUICK_ERROR, several times faster on long texts, and
    whether it is exactly plausibility's float.

    The weights are summed as integer tenths, in no particular order, with no per-character
    Python work: one histogram of :func:`_quick_table` gives their sum, the whitespace to leave
    out, whether any weight is not a multiple of 0.5, and whether the text holds what
    :func:`_penalty` counts at all (a Latin letter and an ideograph to glue it to; three
    characters of U+0080-U+00FF): a Chinese text read in its own code page has none of the
    latter, and its mojibake no ideograph, so the penalty's own passes mostly never run. When
    every weight is a multiple of 0.5 (no kana, no CJK punctuation) each partial float sum of
    plausibility is exact, so its result is this very value.
    """
    codes = _code_points(text)
    if not codes.size:
        return 1.0, True
    try:
        packed = _quick_table()[codes]
    except IndexError:   # beyond the BMP
        return _quick_plausibility_astral(codes)
    rows = np.bincount(packed, minlength=_QUICK_BINS).reshape(-1, 256)
    hist = rows.sum(axis=0)    # by tenths byte
    spaces = int(hist[_SPACE_BIN])
    total = len(codes) - spaces
    if not total:
        return 1.0, True
    score = (int(hist @ _BIN_TENTHS) - _SPACE * spaces) / 10
    exact = not hist[_BIN_INEXACT].any()
    kinds = rows.sum(axis=1).tolist()   # by the flags above the tenths byte
    points = 0
    if kinds[_LETTER] and kinds[_GLUE]:
        points += _glued(codes)
    if kinds[_HIGH_LATIN1] >= 3:
        points += _latin1_runs(codes)
    return (score - points) / total, exact


#: The flags :func:`_quick_table` keeps above each code point's tenths byte (one at most is set:
#: the three sets are disjoint), as row numbers of its 256-bin histogram.
_LETTER, _GLUE, _HIGH_LATIN1 = 1, 2, 4
_QUICK_BINS = 8 * 256


@functools.cache
def _quick_table() -> np.ndarray:
    """Per BMP code point: its tenths byte (:func:`_tables`), plus 256 times a flag for what
    :func:`_penalty` looks at: an ASCII letter (_glued's Latin side), an ideograph, kana or
    Hangul syllable (its other side), a character of U+0080-U+00FF but the no-break space
    (what _latin1_runs counts runs of). Built from the tables in a few milliseconds."""
    tenths, script = _tables()
    codes = np.arange(0x10000, dtype=np.int64)
    folded = codes | 0x20
    letter = (folded >= 0x61) & (folded <= 0x7A)
    glue = (script == _IDEOGRAPH) | (script == _KANA_HANGUL)
    high = (codes >= 0x80) & (codes <= 0xFF) & (codes != 0xA0)
    flags = letter * _LETTER + glue * _GLUE + high * _HIGH_LATIN1
    table = (tenths.view(np.uint8).astype(np.int64) + 256 * flags).astype(np.uint16)
    table.flags.writeable = False
    return table


#: The tenths each bin of a histogram of the int8 weight table's bytes stands for.
_BIN_TENTHS = np.arange(256, dtype=np.int64) - np.where(np.arange(256) >= 128, 256, 0)
_BIN_INEXACT = _BIN_TENTHS % 5 != 0
_SPACE_BIN = _SPACE & 0xFF


def _quick_plausibility_astral(codes: np.ndarray) -> tuple[float, bool]:
    tenths = _tenths_of(codes)
    spaces = int(np.count_nonzero(tenths == _SPACE))
    total = len(codes) - spaces
    if not total:
        return 1.0, True
    score = (int(tenths.sum(dtype=np.int64)) - _SPACE * spaces) / 10
    exact = not (tenths % 5).any()
    return (score - _penalty(codes, int(codes.max()))) / total, exact


#: Below this many characters plausibility counts in Python; numpy's fixed costs dominate.
_NUMPY_FROM = 200


@functools.lru_cache(maxsize=1 << 16)
def _scored_weight(c: str) -> float | None:
    return None if c.isspace() else char_weight(c)


def plausibility(text: str) -> float:
    """How much ``text`` looks like human writing: about 0.6-1.0 for real text, below 0.3 for
    mojibake. Whitespace is not counted; an ideograph next to a Latin letter costs a point, and
    so does each character that continues a run of three from U+0080-U+00FF.

    The score is a float sum over distinct characters in order of first appearance (as a
    ``Counter`` lists them), and the faster paths give the same float to the last bit: the
    integer sum of tenths when that float is exact (see :func:`quick_plausibility`), else
    numpy keeping the order.
    """
    if len(text) < _NUMPY_FROM:
        total = 0
        score = 0.0
        for ch, n in Counter(text).items():
            w = _scored_weight(ch)
            if w is not None:
                total += n
                score += n * w
        if not total:
            return 1.0
        codes = _code_points(text)
        return (score - _penalty(codes, int(codes.max()))) / total
    quick, exact = quick_plausibility(text)
    if exact:
        return quick
    codes = _code_points(text)
    tenths = _tenths_of(codes)
    total = int(np.count_nonzero(tenths != _SPACE))
    distinct, first, counts = np.unique(codes, return_index=True, return_counts=True)
    order = np.argsort(first)
    distinct, counts = distinct[order], counts[order]
    tenths = _tenths_of(distinct)
    weights = np.where(tenths != _SPACE, tenths, 0) / 10
    # cumsum adds strictly left to right (sum() would add pairwise): the Counter loop's sum.
    score = float(np.cumsum(counts * weights)[-1])
    return (score - _penalty(codes, int(codes.max()))) / total


# -- bounds -------------------------------------------------------------------------------------
_ASCII_ALNUM = bytes(range(0x30, 0x3A)) + bytes(range(0x41, 0x5B)) + bytes(range(0x61, 0x7B))
_CP1252_SPACE = b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \xa0"


def cp1252_ceiling(data: bytes) -> float:
    """An upper bound of plausibility(data.decode("cp1252")), from byte counts alone.

    One character per byte; ASCII letters and digits weigh 1.0, every other character at most
    the heaviest of the rest (0.5: punctuation, Latin-1 letters), and glued pairs only lower it.
    """
    total = len(data.translate(None, _CP1252_SPACE))
    if not total:
        return 1.0
    alnum = len(data) - len(data.translate(None, _ASCII_ALNUM))
    return (alnum + _cp1252_heaviest_other() * (total - alnum)) / total


@functools.cache
def _cp1252_heaviest_other() -> float:
    others = bytes(b for b in range(256) if b not in _ASCII_ALNUM and b not in _CP1252_SPACE)
    return max(char_weight(c) for c in others.decode("cp1252", errors="ignore"))


def script_counts(text: str) -> list[int]:
    """How many characters of ``text`` are ASCII, other, CJK ideographs, kana or Hangul, and
    CJK punctuation, in that order."""
    return np.bincount(_script_of(_code_points(text)), minlength=5).tolist()
