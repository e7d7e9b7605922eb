"""Normalisation: the one form of a text that every score is computed on.

Normalisation goes through numpy: one lookup table maps each BMP character to what
NFKC + casefold + NFKC and our punctuation and whitespace rules make of it, so the usual text
costs a few array passes. Characters whose normal form depends on their neighbours (combining
marks, conjoining jamo) or is not one character ("…" becomes "...") send only their own *line*
through :mod:`unicodedata`; normalising line by line is the same as normalising the whole text
because no normalisation step crosses a ``"\\n"``.

Everything also works on a *batch*: documents joined by NUL (:data:`SEPARATOR`) go through each
stage as one array, so a thousand small files cost about what one large file does.

The character classes (:func:`char_class`, :func:`classify`) live here too: the same table
that normalises a character says whether it is part of a word, a CJK unit or a separator (see
:mod:`neardup_core.text.shingles` for what units are).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from neardup_core.arrays import unique_sorted
from neardup_core.tables import cached_arrays

# -- character classes --------------------------------------------------------------------------
SEP, WORD, CJK = 0, 1, 2

#: Blocks whose letters and numbers are one unit per character (categories still decide).
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x1100, 0x11FF),    # Hangul Jamo
    (0x3000, 0x303F),    # CJK symbols: 々 〆 〇 and the Hangzhou numerals are letters/numbers
    (0x3040, 0x30FF),    # Hiragana, Katakana
    (0x3100, 0x31FF),    # Bopomofo, Hangul compatibility Jamo, Kanbun, Katakana extension
    (0x3200, 0x33FF),    # enclosed and compatibility forms (NFKC maps most of them away)
    (0x3400, 0x4DBF),    # CJK Extension A
    (0x4E00, 0x9FFF),    # CJK Unified Ideographs
    (0xA960, 0xA97F),    # Hangul Jamo Extended-A
    (0xAC00, 0xD7FF),    # Hangul syllables, Jamo Extended-B
    (0xF900, 0xFAFF),    # CJK compatibility ideographs
    (0xFF65, 0xFFDC),    # halfwidth katakana and hangul (NFKC widens them)
    (0x1AFF0, 0x1B16F),  # kana extensions and supplement
    (0x20000, 0x3FFFF),  # CJK Extensions B and later
)


def _in_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


def char_class(ch: str) -> int:
    """SEP, WORD or CJK for one (normalised) character: the rule :func:`units` applies."""
    if unicodedata.category(ch)[0] not in "LNM":
        return SEP
    return CJK if _in_cjk(ord(ch)) else WORD


# -- normalisation tables -----------------------------------------------------------------------
LINE_BREAKS = "\n\v\f\r\x1c\x1d\x1e\x85\u2028\u2029"
#: Punctuation that NFKC leaves alone, mapped to one ASCII form (only hashes see punctuation).
PUNCTUATION = {
    **dict.fromkeys("。", "."), **dict.fromkeys("、", ","),
    **dict.fromkeys("“”„‟〝〞〟「」『』", '"'), **dict.fromkeys("‘’‚‛", "'"),
    **dict.fromkeys("《〈", "<"), **dict.fromkeys("》〉", ">"),
    **dict.fromkeys("【〔〖〘〚", "["), **dict.fromkeys("】〕〗〙〛", "]"),
    **dict.fromkeys("‐‒–—―", "-"), **dict.fromkeys("〜", "~"), **dict.fromkeys("・‧", "·"),
}
_DELETE = 0x110000   # beyond Unicode: the character is dropped (format characters)
_SPECIAL = 0x110001  # its line goes through unicodedata
_EXPAND = 0x120000   # _EXPAND + i: the character becomes row i of the expansion table
MAX_EXPAND = 4       # longer expansions (rare ligatures, Arabic phrases) take the slow path
_BMP = 0x10000


def _pipeline(s: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", s).casefold())


@dataclass(frozen=True)
class _Tables:
    chars: np.ndarray      # uint32 (65536,): mapped code point, _DELETE, _SPECIAL or _EXPAND + i
    classes: np.ndarray    # uint8 (65536,): char_class of each BMP code point
    expansion: np.ndarray  # uint32 (rows, MAX_EXPAND): what "…", "ß", "㎡"... become
    expansion_len: np.ndarray  # uint8 (rows,)
    astral_format: np.ndarray  # uint32: Cf characters above the BMP (tags, ...)


def _all_chars(lo: int, hi: int) -> str:
    return np.arange(lo, hi, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")


def _categories(chars: str) -> np.ndarray:
    """(len, 2) uint8: the two letters of each character's general category."""
    joined = "".join(map(unicodedata.category, chars)).encode("ascii")
    return np.frombuffer(joined, dtype=np.uint8).reshape(-1, 2)


@functools.cache
def _tables() -> _Tables:
    """Once per process: from the cache folder (see :mod:`neardup_core.tables`), or built
    from unicodedata (~0.1 s)."""
    names = ("chars", "classes", "expansion", "expansion_len", "astral_format")
    dtypes = (np.uint32, np.uint8, np.uint32, np.uint8, np.uint32)

    def check(a: dict[str, np.ndarray]) -> bool:
        return (all(a.get(n) is not None and a[n].dtype == d for n, d in zip(names, dtypes,
                                                                                strict=True))
                and a["chars"].shape == (_BMP,) and a["classes"].shape == (_BMP,)
                and a["expansion"].shape == (a["expansion_len"].shape[0], MAX_EXPAND))

    def build() -> dict[str, np.ndarray]:
        t = _build_tables()
        return {n: getattr(t, n) for n in names}

    got = cached_arrays("normalize", [__file__], "", build, check)
    return _Tables(*(got[n] for n in names))


def _build_tables() -> _Tables:
    """The normalisation tables, all BMP characters at a time."""
    cps = np.arange(_BMP)
    bmp = _all_chars(0, _BMP)
    cats = _categories(bmp)
    major = cats[:, 0]
    letterlike = np.isin(major, np.frombuffer(b"LNM", dtype=np.uint8))
    in_cjk = np.zeros(_BMP, dtype=bool)
    for lo, hi in CJK_RANGES:
        in_cjk[lo:hi + 1] = True
    classes = np.where(letterlike, np.where(in_cjk, CJK, WORD), SEP).astype(np.uint8)

    def context_sensitive(codes: np.ndarray) -> np.ndarray:
        # marks compose with or reorder around their neighbours; so do medial and final jamo
        return ((major[codes] == ord("M")) | ((codes >= 0x1160) & (codes <= 0x11FF))
                | ((codes >= 0xD7B0) & (codes <= 0xD7FF)))

    # the final rules, applied to what the pipeline made of a character
    final = np.arange(_BMP, dtype=np.uint32)
    cat_is = {c: (cats[:, 0] == ord(c[0])) & (cats[:, 1] == ord(c[1])) for c in ("Cf", "Cc")}
    final[cat_is["Cc"]] = 32
    final[np.fromiter(map(str.isspace, bmp), dtype=bool, count=_BMP)] = 32
    final[[ord(ch) for ch in LINE_BREAKS]] = 10
    for src, dst in PUNCTUATION.items():
        final[ord(src)] = ord(dst)
    final[cat_is["Cf"]] = _DELETE

    # Each character alone through the pipeline, all in one call: "\n" stops every
    # normalisation step, so splitting the result gives each character's own result.
    todo = cps[(cps != 10) & ((cps < 0xD800) | (cps > 0xDFFF))]
    results = _pipeline("\n".join(from_codes(todo.astype(np.uint32)))).split("\n")
    assert len(results) == todo.shape[0]
    lens = np.fromiter(map(len, results), dtype=np.int64, count=len(results))
    flat = to_codes("".join(results)).astype(np.int64)
    first = np.cumsum(lens) - lens
    # a result is usable as is if no character in it or its source depends on neighbours
    bad = (flat >= _BMP) | context_sensitive(np.minimum(flat, _BMP - 1))
    bad_result = np.logical_or.reduceat(bad, first) | context_sensitive(todo)
    chars = np.arange(_BMP, dtype=np.uint32)
    single = (lens == 1) & ~bad_result
    chars[todo[single]] = final[flat[first[single]]]
    multi = (lens >= 2) & (lens <= MAX_EXPAND) & ~bad_result
    expansion = np.zeros((int(multi.sum()), MAX_EXPAND), dtype=np.uint32)
    for j in range(MAX_EXPAND):
        has = lens[multi] > j
        expansion[has, j] = final[flat[first[multi][has] + j]]
    chars[todo[multi]] = _EXPAND + np.arange(expansion.shape[0], dtype=np.uint32)
    chars[todo[~single & ~multi]] = _SPECIAL
    astral_format = []
    for lo, hi in ((0x10000, 0x20000), (0xE0000, 0xE1000)):
        c = _categories(_all_chars(lo, hi))
        astral_format += (lo + np.flatnonzero((c[:, 0] == ord("C")) & (c[:, 1] == ord("f")))
                          ).tolist()
    return _Tables(chars, classes, expansion,
                   lens[multi].astype(np.uint8), np.array(astral_format, dtype=np.uint32))


def to_codes(text: str) -> np.ndarray:
    """Code points of ``text``: uint8 for ASCII (4x less to move), else uint32."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def from_codes(codes: np.ndarray, surrogates: bool = True) -> str:
    """The string of ``codes``; ``surrogates=False`` says none is in the surrogate range (the
    caller knows, which saves a pass over uint16 codes)."""
    if codes.dtype == np.uint8:
        return codes.tobytes().decode("latin-1")
    if codes.dtype == np.uint16:
        if surrogates:
            surrogates = bool(((codes >= 0xD800) & (codes <= 0xDFFF)).any())
        if not surrogates:  # else UTF-16 would pair them up: decode as UTF-32
            return codes.astype("<u2", copy=False).tobytes().decode("utf-16-le")
    return codes.astype("<u4", copy=False).tobytes().decode("utf-32-le", "surrogatepass")


def _slow_line(raw: np.ndarray, mapped: np.ndarray, t: _Tables) -> np.ndarray:
    """One line through unicodedata; format characters go first so they cannot block
    a composition (normalising twice then gives the same text)."""
    keep = mapped != _DELETE
    astral = raw >= _BMP
    if astral.any():
        keep &= ~(astral & np.isin(raw, t.astral_format))
    fixed = _pipeline(from_codes(raw[keep]))
    if not fixed:
        return np.empty(0, dtype=np.uint32)
    codes = to_codes(fixed).astype(np.uint32)
    # only the final rules are left to apply: the pipeline has run
    out = np.take(t.chars, codes, mode="clip")
    same = (codes >= _BMP) | (out >= _SPECIAL)
    out[same] = codes[same]
    return out


def _expand(mapped: np.ndarray, t: _Tables) -> np.ndarray:
    """Replace _EXPAND markers by their 2 to MAX_EXPAND characters."""
    pos = np.flatnonzero(mapped >= _EXPAND)
    if pos.size == 0:
        return mapped
    row = mapped[pos] - _EXPAND
    lens = t.expansion_len[row].astype(np.int64)
    mapped[pos] = t.expansion[row, 0]
    rest = np.arange(1, MAX_EXPAND)[None, :] < lens[:, None]  # (len(pos), MAX_EXPAND - 1)
    where = np.broadcast_to(pos[:, None] + 1, rest.shape)[rest]
    return np.insert(mapped, where, t.expansion[row, 1:][rest])


@dataclass(frozen=True)
class _FastTables:
    """Views of :class:`_Tables` shaped for the hot paths (built once, from _tables())."""

    latin: bytes              # bytes.translate table: Latin-1 -> mapped, or _LATIN_OTHER
    latin_batch: bytes        # the same with NUL kept (the batch separator)
    chars_batch: np.ndarray   # _Tables.chars with NUL kept
    classes_latin: bytes      # bytes.translate table: byte -> char_class


#: What :data:`_FastTables.latin` gives a Latin-1 character that does not map to one Latin-1
#: character (ß, ¼, the soft hyphen...). A control character: normalised text never has one.
_LATIN_OTHER = 1


@functools.cache
def _fast_tables() -> _FastTables:
    t = _tables()
    to = t.chars[:256]
    latin = np.where(to < 256, to, _LATIN_OTHER).astype(np.uint8)
    assert not (latin[to < 256] == _LATIN_OTHER).any()
    latin_batch = latin.copy()
    latin_batch[0] = 0
    chars_batch = t.chars.copy()
    chars_batch[0] = 0
    chars_batch.flags.writeable = False
    return _FastTables(latin.tobytes(), latin_batch.tobytes(), chars_batch,
                       t.classes[:256].tobytes())


def _map_text(text: str, batch: bool) -> np.ndarray:
    """Table-map ``text``; with ``batch``, NUL separates documents and maps to itself (0).

    The result is writable (:func:`_collapse_spaces` edits it in place).
    """
    t = _tables()
    f = _fast_tables()
    try:
        latin = bytearray(text, "latin-1")  # fails at once on most text that is not
    except UnicodeEncodeError:
        latin = None
    if latin is not None:
        # bytes.translate: one C pass, where np.take would first widen every index to intp
        mapped = latin.translate(f.latin_batch if batch else f.latin)
        if _LATIN_OTHER not in mapped:
            return np.frombuffer(mapped, dtype=np.uint8)
    raw = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    # astral characters are clipped to the last BMP entry here and marked just below
    mapped = np.take(f.chars_batch if batch else t.chars, raw, mode="clip")
    wide = bool(raw.shape[0]) and int(raw.max()) >= _BMP
    if wide:
        mapped[raw >= _BMP] = _SPECIAL
    # every marker is >= _DELETE: one max() tells whether any of the rare paths is needed
    if not raw.shape[0] or int(mapped.max()) < _DELETE:
        return mapped if wide else mapped.astype(np.uint16)
    special = np.flatnonzero(mapped == _SPECIAL)
    if special.size:
        newlines = np.flatnonzero((raw == 10) | (raw == 0) if batch else raw == 10)
        bounds = np.concatenate(([-1], newlines, [raw.shape[0]]))
        pieces = []
        prev = 0
        for li in unique_sorted(np.searchsorted(newlines, special)).tolist():
            s, e = int(bounds[li]) + 1, int(bounds[li + 1])
            pieces.append(mapped[prev:s])
            line = _slow_line(raw[s:e], mapped[s:e], t)
            wide = wide or bool(line.shape[0] and int(line.max()) >= _BMP)
            pieces.append(line)
            prev = e
        pieces.append(mapped[prev:])
        mapped = np.concatenate(pieces)
    mapped = _expand(mapped, t)
    drop = mapped == _DELETE
    if drop.any():
        mapped = mapped[~drop]
    # narrower codes make every later pass cheaper; markers are all resolved by now
    return mapped if wide else mapped.astype(np.uint16)


#: Steps :func:`_run_starts` walks back one position at a time before searching instead.
_WALK_STEPS = 4


def _run_starts(ws: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """First index of the whitespace run holding each of ``pos`` (whitespace positions).

    The runs that need it (spaces before a line break, the ends of documents) are short, so a
    few vectorised steps back settle nearly all; the rest search the list of all run starts.
    """
    out = pos.copy()
    todo = np.arange(pos.shape[0])
    for _ in range(_WALK_STEPS):
        p = out[todo]
        more = p > 0
        more[more] = ws[p[more] - 1]
        if not more.any():
            return out
        todo = todo[more]
        out[todo] -= 1
    firsts = np.flatnonzero(ws[1:] & ~ws[:-1]) + 1
    if ws[0]:
        firsts = np.concatenate(([0], firsts))
    p = out[todo]
    out[todo] = firsts[np.searchsorted(firsts, p, side="right") - 1]
    return out


def _collapse_spaces(c: np.ndarray) -> np.ndarray:
    """Each run of spaces/newlines becomes one "\\n" if it holds a newline, else one " "; runs
    at either end of the text or next to a document separator (0) go. So lines are stripped and
    blank lines dropped. May modify ``c`` in place.

    Every run keeps its first character, so the keep mask is "not whitespace after
    whitespace", computed on the whole array in two passes; only the few runs that need more
    (a newline not first in its run, the ends of documents) are looked at one by one.
    """
    ws = (c == 32) | (c == 10)
    n = c.shape[0]
    if n == 0 or not ws.any():
        return c
    keep = np.empty(n, dtype=bool)
    np.logical_and(ws[1:], ws[:-1], out=keep[1:])
    np.logical_not(keep[1:], out=keep[1:])
    keep[0] = not ws[0]
    # a run holding a newline that is not its first character: its first becomes "\n"
    nl = np.flatnonzero(c == 10)
    if nl.shape[0]:
        late = nl[nl > 0]
        late = late[c[late - 1] == 32]  # the first newline of its run, after spaces
        if late.shape[0]:
            c[_run_starts(ws, late - 1)] = 10
    # runs touching the end of the text or a separator go (the start of the text is done)
    seps = np.flatnonzero(c == 0)
    after = seps + 1
    after = after[after < n]
    keep[after[ws[after]]] = False
    before = np.concatenate((seps - 1, [n - 1]))
    before = before[before >= 0]
    before = before[ws[before]]
    if before.shape[0]:
        keep[_run_starts(ws, before)] = False
    return c[keep]


#: Joins the documents of a batch. An input NUL becomes SOH first: both are control
#: characters, which normalise to a space, so no document can contain the separator.
SEPARATOR = "\x00"


def normalize_many(texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """:func:`normalize` of each text, and the code points of the results joined by NUL.

    One pass over the whole batch: per-call overhead, not characters, is what costs most for
    small files, so a scan normalises (and fingerprints) documents in batches.
    Codes are uint8 when all are below 256 (ASCII, Latin-1), uint16 within the BMP, else
    uint32.
    """
    docs, codes, _ = normalize_joined(texts)
    return docs, codes


def normalize_joined(texts: Sequence[str]) -> tuple[list[str], np.ndarray, str]:
    """:func:`normalize_many` plus the normalised texts joined by NUL as one string (the
    fingerprint hashes it, and splitting it is how the documents were made anyway)."""
    if not texts:
        return [], np.empty(0, dtype=np.uint8), ""
    batch = len(texts) > 1
    joined = (SEPARATOR.join([t.replace("\x00", "\x01") if "\x00" in t else t for t in texts])
              if batch else texts[0])
    if not joined:
        return [""] * len(texts), np.empty(0, dtype=np.uint8), SEPARATOR * (len(texts) - 1)
    codes = _collapse_spaces(_map_text(joined, batch))
    top = 0
    if codes.dtype != np.uint8 and codes.shape[0]:
        top = int(codes.max())
        if top < 256:
            codes = codes.astype(np.uint8)
    out = from_codes(codes, surrogates=top >= 0xD800)
    docs = out.split(SEPARATOR) if batch else [out]
    assert len(docs) == len(texts)
    return docs, codes, out


def normalize_codes(text: str) -> tuple[str, np.ndarray]:
    """:func:`normalize` and the code points of its result (see :func:`normalize_many`)."""
    docs, codes = normalize_many([text])
    return docs[0], codes


def normalize(text: str) -> str:
    """The text scores are computed on: NFKC, casefolded, one form of spacing and punctuation.

    NFKC folds full/half-width forms (ＡＢＣ１２３ -> abc123, ideographic space -> space);
    casefold is Unicode's caseless form (ß -> ss); zero-width and other format characters go;
    CJK punctuation NFKC keeps (。、“”《》【】...) becomes its ASCII look-alike; every kind of
    space and control character becomes " ", runs collapse, lines are stripped, blank lines
    dropped, "\\n" separates lines. Idempotent.
    """
    return normalize_codes(text)[0]


def lines(normalized: str) -> list[str]:
    """Non-empty lines of a normalised text (boilerplate is detected line by line)."""
    return normalized.split("\n") if normalized else []


def classify(codes: np.ndarray) -> np.ndarray:
    """:func:`char_class` of every code point, as uint8."""
    table = _tables().classes
    if codes.dtype == np.uint8:  # bytes.translate: no intp copy of the indices
        return np.frombuffer(codes.tobytes().translate(_fast_tables().classes_latin),
                             dtype=np.uint8)
    if codes.dtype == np.uint16:
        return np.take(table, codes)
    big = codes >= _BMP
    out = np.take(table, codes, mode="clip")
    if big.any():
        uniq, inv = np.unique(codes[big], return_inverse=True)
        out[big] = np.array([char_class(chr(c)) for c in uniq.tolist()], dtype=np.uint8)[inv]
    return out


__all__ = [
    "CJK",
    "CJK_RANGES",
    "LINE_BREAKS",
    "PUNCTUATION",
    "SEP",
    "SEPARATOR",
    "WORD",
    "char_class",
    "classify",
    "from_codes",
    "lines",
    "normalize",
    "normalize_codes",
    "normalize_joined",
    "normalize_many",
    "to_codes",
]
