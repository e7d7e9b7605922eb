"""Normalisation, units and shingles, Chinese words: what a document's fingerprint is made of.

The contract every score relies on (see ``scoring.py``): after :func:`normalize`, a text is a
sequence of *units*: runs of letters, digits and marks ("words", any script but CJK) and single
CJK characters (Han, kana, hangul: one character, one unit). Everything else, punctuation and
whitespace included, only separates units. *Shingles* are the runs of ``n`` consecutive units,
across line breaks; a text with fewer than ``n`` units (but at least one) has one shingle made of
all of them. :func:`units` and :func:`shingle_set` state this plainly, one character at a time;
:func:`analyse` and :func:`shingle_hashes` compute the same thing with numpy, and tests check
that ``{shingle_hash(s) for s in shingle_set(t, n)}`` equals the fast hashes.

Normalisation goes through numpy too: one lookup table maps each BMP character to what
NFKC + casefold + NFKC and our punctuation and whitespace rules make of it, so the usual text
costs a few array passes. Characters whose normal form depends on their neighbours (combining
marks, conjoining jamo) or is not one character ("…" becomes "...") send only their own *line*
through :mod:`unicodedata`; normalising line by line is the same as normalising the whole text
because no normalisation step crosses a ``"\\n"``.

Everything also works on a *batch*: documents joined by NUL (:data:`SEPARATOR`) go through each
stage as one array, so a thousand small files cost about what one large file does.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from neardup_core.arrays import unique_sorted
from neardup_core.hashing import (
    char_hashes,
    combine_at,
    combine_hashes,
    combine_windows,
    hash_partition,
    hash_sorted_segments,
    segment_hash,
    splitmix64_inplace,
)
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
    results = _pipeline("\n".join(_from_codes(todo.astype(np.uint32)))).split("\n")
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


def _from_codes(codes: np.ndarray, surrogates: bool = True) -> str:
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
    fixed = _pipeline(_from_codes(raw[keep]))
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
    out = _from_codes(codes, surrogates=top >= 0xD800)
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


# -- units and shingles: the plain reference ----------------------------------------------------
SHINGLE_JOIN = "\x1f"  # a separator, so never inside a unit


def units(text: str) -> list[str]:
    """The units of a (normalised) text, one character at a time: the reference definition."""
    out: list[str] = []
    word: list[str] = []
    for ch in text:
        kind = char_class(ch)
        if kind == WORD:
            word.append(ch)
            continue
        if word:
            out.append("".join(word))
            word.clear()
        if kind == CJK:
            out.append(ch)
    if word:
        out.append("".join(word))
    return out


def shingle_set(text: str, n: int) -> set[str]:
    """Shingles of a (normalised) text as strings of units joined by SHINGLE_JOIN.

    Slow and plain on purpose: it defines what the fast path must reproduce and what the
    benchmark's ground truth is.
    """
    if n < 1:
        raise ValueError(f"shingle length must be at least 1, got {n}")
    us = units(text)
    if not us:
        return set()
    if len(us) < n:
        return {SHINGLE_JOIN.join(us)}
    return {SHINGLE_JOIN.join(us[i:i + n]) for i in range(len(us) - n + 1)}


def shingle_hash(shingle: str) -> int:
    """The hash the fast path gives a shingle from :func:`shingle_set` (reference)."""
    return combine_hashes([segment_hash(u) for u in shingle.split(SHINGLE_JOIN)])


# -- units and shingles: vectorised -------------------------------------------------------------
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


@dataclass(frozen=True, slots=True, eq=False)
class Analysis:
    """Normalised text (one document or a NUL-joined batch) cut into units, computed once and
    shared by shingles and features."""

    codes: np.ndarray    # code points (uint8, uint16 or uint32)
    classes: np.ndarray  # uint8 char_class per code point
    starts: np.ndarray   # int64 index of each unit's first code point
    hashes: np.ndarray   # uint64 segment hash per unit, in order
    cjk: np.ndarray      # bool per unit: a single CJK character (else a word)
    unit_docs: np.ndarray  # int64 document index of each unit (sorted)
    docs: int = 1        # documents in the batch
    separators: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    def doc_of(self, positions: np.ndarray) -> np.ndarray:
        """Document index of each of the (sorted) code positions, as int64."""
        return _docs_of_sorted(positions, self.separators, self.docs)


def _docs_of_sorted(positions: np.ndarray, separators: np.ndarray, docs: int) -> np.ndarray:
    if docs == 1:
        return np.zeros(positions.shape[0], dtype=np.int64)
    # a few hundred separators searched in the positions, not the other way round
    bounds = np.searchsorted(positions, separators)
    counts = np.diff(bounds, prepend=0, append=positions.shape[0])
    return np.repeat(np.arange(docs, dtype=np.int64), counts)


def analyse_codes(codes: np.ndarray, docs: int = 1) -> Analysis:
    """Units of normalised code points; with ``docs`` > 1, NUL (0) separates documents."""
    cls = classify(codes)
    w = cls == WORD
    # Latin-1 has no CJK characters; otherwise look
    c = cls == CJK if codes.dtype != np.uint8 else None
    has_cjk = c is not None and bool(c.any())
    edge = np.zeros(w.shape[0] + 1, dtype=bool)  # edge[i]: w changes between i - 1 and i
    edge[1:-1] = w[1:] != w[:-1]
    if w.shape[0]:
        edge[0] = w[0]
        edge[-1] = w[-1]
    if c is not None and has_cjk:
        is_start = w & edge[:-1]
        is_start |= c
        starts = np.flatnonzero(is_start)
    else:
        # words alone: their edges alternate start, end, start, end...
        bounds = np.flatnonzero(edge)
        starts = np.ascontiguousarray(bounds[0::2])
        ends = np.ascontiguousarray(bounds[1::2])
    if docs > 1:
        seps = np.flatnonzero(codes == 0)
        if seps.shape[0] != docs - 1:
            raise ValueError(f"expected {docs - 1} document separators, found {seps.shape[0]}")
        unit_docs = _docs_of_sorted(starts, seps, docs)
    else:
        seps = np.empty(0, np.int64)
        unit_docs = np.broadcast_to(np.zeros(1, np.int64), starts.shape)  # no memory per unit
    if not has_cjk:
        return Analysis(codes, cls, starts, hash_sorted_segments(codes, starts, ends),
                        np.zeros(starts.shape[0], dtype=bool), unit_docs, docs, seps)
    # CJK units: a table lookup per character beats prefix sums; words (few, in CJK text):
    # prefix sums over their characters alone
    assert c is not None
    unit_cjk = c[starts]
    hashes = char_hashes(codes[starts])
    if not unit_cjk.all():
        words = ~unit_cjk
        # word ends alone: CJK text has few words, and 1 - starts over all units is costly
        lengths = np.flatnonzero(w & edge[1:]) + 1 - starts[words]
        hashes[words] = hash_partition(codes[w], lengths)
    return Analysis(codes, cls, starts, hashes, unit_cjk, unit_docs, docs, seps)


def analyse(normalized: str) -> Analysis:
    """Units of a normalised text, vectorised (same units as :func:`units`)."""
    return analyse_codes(to_codes(normalized))


def unit_hashes(normalized: str) -> np.ndarray:
    """uint64 segment hash of each unit of a normalised text, in order."""
    return analyse(normalized).hashes


def shingle_hashes(units: np.ndarray, n: int) -> np.ndarray:
    """Hashes of the shingles of one document's unit hashes, in order and with repeats.

    Not deduplicated: MinHash does not care, and sorting would cost more than it saves.
    """
    if n < 1:
        raise ValueError(f"shingle length must be at least 1, got {n}")
    h = np.asarray(units, dtype=np.uint64)
    if h.shape[0] == 0:
        return np.empty(0, dtype=np.uint64)
    return combine_windows(h, min(n, h.shape[0]))


def shingle_hashes_many(a: Analysis, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(shingle hashes, document index) for every document of a batch, ordered by document.

    Windows that straddle two documents are dropped; a document with fewer than ``n`` units
    gets its one short shingle, exactly as :func:`shingle_hashes` gives it alone.
    """
    if n < 1:
        raise ValueError(f"shingle length must be at least 1, got {n}")
    h = a.hashes
    m = h.shape[0]
    doc = a.unit_docs
    if a.docs == 1:
        return shingle_hashes(h, n), np.zeros(max(0, m - n + 1) if m >= n else min(m, 1),
                                              dtype=np.int64)
    counts = np.bincount(doc, minlength=a.docs)
    win = combine_windows(h, n)
    win_doc = doc[:win.shape[0]]
    if win.shape[0]:
        inside = win_doc == doc[n - 1:]
        win, win_doc = win[inside], win_doc[inside]
    short = np.flatnonzero((counts > 0) & (counts < n))
    if short.shape[0]:
        first = np.cumsum(counts) - counts
        extra = np.empty(short.shape[0], dtype=np.uint64)
        for k in unique_sorted(counts[short]).tolist():
            sel = counts[short] == k
            extra[sel] = combine_at(h, first[short[sel]], k)
        at = np.searchsorted(win_doc, short)
        win = np.insert(win, at, extra)
        win_doc = np.insert(win_doc, at, short)
    return win, win_doc


def shingle_keys_many(a: Analysis, n: int, bounds: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(shingle hashes, document index) with the same *set* of hashes per document as
    :func:`shingle_hashes_many`, which is all MinHash looks at, computed without moving arrays.

    A window that straddles two documents is not dropped but overwritten with a copy of a
    hash its first document has anyway (its first window, or its one short shingle), so the
    documents are those of the windows' first units as they are (no filtering, no insert).
    ``bounds``, if the caller has them: where each document's units start, then the number of
    units (``np.searchsorted(a.unit_docs, np.arange(a.docs + 1))``).
    """
    if n < 1:
        raise ValueError(f"shingle length must be at least 1, got {n}")
    h = a.hashes
    m = h.shape[0]
    if a.docs == 1 or m < n:
        return shingle_hashes_many(a, n)
    win = combine_windows(h, n)
    count = win.shape[0]
    doc = a.unit_docs[:count]
    if bounds is None:
        bounds = np.searchsorted(a.unit_docs, np.arange(a.docs + 1))
    first, counts = bounds[:-1], np.diff(bounds)
    if n == 1:
        return win, doc
    steps = np.arange(n - 1)
    # documents of n units or more: the windows starting in their last n - 1 units
    full = np.flatnonzero(counts >= n)
    at = (first[full] + counts[full] - n + 1)[:, None] + steps
    src = np.broadcast_to(first[full][:, None], at.shape)
    inside = at < count
    win[at[inside]] = win[src[inside]]
    short = np.flatnonzero((counts > 0) & (counts < n))
    if short.shape[0]:
        extra = np.empty(short.shape[0], dtype=np.uint64)
        for k in unique_sorted(counts[short]).tolist():
            sel = counts[short] == k
            extra[sel] = combine_at(h, first[short[sel]], k)
        at = first[short][:, None] + steps
        ok = (at < (first[short] + counts[short])[:, None]) & (at < count)
        win[at[ok]] = np.broadcast_to(extra[:, None], at.shape)[ok]
        late = first[short] >= count  # at the end of the batch: no window starts in them
        if late.any():
            win = np.concatenate((win, extra[late]))
            doc = np.concatenate((doc, short[late]))
    return win, doc


# -- Chinese words ------------------------------------------------------------------------------
class Segmenter:
    """Chinese word segmentation with jieba's semantics (its dictionary, HMM on).

    The hot path is rjieba (jieba-rs), which gives exactly jieba's tokens on runs of CJK text
    (checked on 20,000 news and law sentences; it differs from jieba only on Latin/number runs
    such as "3-1" or "a.com", which we never give it). jieba itself is used when rjieba is
    missing or a user dictionary is given: rjieba 0.2 has ``add_word`` but no
    ``load_userdict``, and jieba's own loader is what defines the dictionary format.
    """

    def __init__(self, user_dict: str | None = None, backend: str | None = None) -> None:
        if backend not in (None, "rjieba", "jieba"):
            raise ValueError(f"backend must be 'rjieba', 'jieba' or None, got {backend!r}")
        if backend == "rjieba" and user_dict is not None:
            raise ValueError("a user dictionary needs the jieba backend")
        self.user_dict = user_dict
        self._wanted = backend
        self._backend: str | None = None
        self._cut: Callable[[str], list[str]] | None = None

    @property
    def backend(self) -> str:
        """"rjieba" or "jieba", once loaded."""
        self._load()
        assert self._backend is not None
        return self._backend

    def _load(self) -> Callable[[str], list[str]]:
        if self._cut is None:
            if self._wanted != "jieba" and self.user_dict is None:
                try:
                    import rjieba
                except ImportError:
                    if self._wanted == "rjieba":
                        raise
                else:
                    self._cut, self._backend = rjieba.cut, "rjieba"
                    return self._cut
            self._cut, self._backend = _jieba_tokenizer(self.user_dict).lcut, "jieba"
        return self._cut

    def cut(self, text: str) -> list[str]:
        """Tokens covering ``text`` exactly, like ``jieba.lcut(text)``."""
        return self._load()(text) if text else []


def _jieba_tokenizer(user_dict: str | None):
    import jieba

    # jieba logs "Building prefix dict..." at DEBUG to stderr; keep warnings and errors only.
    logging.getLogger("jieba").setLevel(logging.WARNING)
    tok = jieba.Tokenizer()
    tok.initialize()  # cache file in tempfile.gettempdir(), never the home folder
    if user_dict is not None:
        with open(user_dict, "rb") as f:  # jieba would leave a path it opened unclosed
            tok.load_userdict(f)
    return tok


def chinese_words(a: Analysis, segmenter: Segmenter) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """(hash, length, code position) of each segmenter token over the text's CJK runs.

    The runs are joined by single spaces into one string so the segmenter is called once per
    batch; it splits blocks at non-CJK characters anyway, so this is the same as cutting each
    run on its own.
    """
    got = _segmented(a, segmenter)
    if got is None:
        return np.empty(0, np.uint64), np.empty(0, np.int64), np.empty(0, np.int64)
    hashes, lengths, starts, sel = got
    return hashes, lengths.astype(np.int64), np.flatnonzero(sel)[starts]


def chinese_tokens(a: Analysis, segmenter: Segmenter) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """:func:`chinese_words` with the document of each token (int64) in place of its code
    position, which is all the word features need: no array of code positions is built."""
    got = _segmented(a, segmenter)
    if got is None:
        return np.empty(0, np.uint64), np.empty(0, np.uint8), np.empty(0, np.int64)
    hashes, lengths, starts, sel = got
    if a.docs == 1:
        return hashes, lengths, np.zeros(starts.shape[0], dtype=np.int64)
    # where each document starts in ``sub``: the selected characters before its separator
    # (index 0 twice, for a first document that is empty, gives sel[0]: False there, so 0)
    per_doc = np.add.reduceat(sel, np.concatenate(([0], a.separators)), dtype=np.int64)
    return hashes, lengths, _docs_of_sorted(starts, np.cumsum(per_doc[:-1]), a.docs)


def _segmented(a: Analysis, segmenter: Segmenter
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_run_tokens` over the CJK runs of ``a`` and the mask of :func:`_cjk_runs`, or
    None when there is no CJK character."""
    if a.codes.dtype == np.uint8:  # Latin-1: no CJK character
        return None
    cjk = a.classes == CJK
    if not cjk.any():
        return None
    sub, sel = _cjk_runs(a.codes, cjk)
    return (*_run_tokens(sub, segmenter), sel)


def _cjk_runs(codes: np.ndarray, cjk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CJK runs of ``codes``, each followed by one space (what the character after it
    becomes), and the mask of the characters kept (the runs and the one after each)."""
    sel = np.empty_like(cjk)
    sel[0] = cjk[0]
    np.logical_or(cjk[1:], cjk[:-1], out=sel[1:])
    return np.where(cjk, codes, codes.dtype.type(32))[sel], sel


def _run_tokens(sub: np.ndarray, segmenter: Segmenter) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """(hash, length, start in ``sub``) of the tokens of :func:`_cjk_runs`' runs.

    Lengths are uint8 when every token is shorter than 256 characters (jieba's words are, in
    practice), else int64.
    """
    # CJK characters and spaces only: never a surrogate
    lengths = _token_lengths(_from_codes(sub, surrogates=False), segmenter)
    ends = np.cumsum(lengths, dtype=np.int64)
    if int(ends[-1]) != sub.shape[0] or int(lengths.min()) < 1:
        raise ValueError("segmenter tokens must be non-empty and cover the text exactly")
    starts = ends - lengths
    keep = np.take(sub, starts) != 32  # the spaces come back as tokens of their own
    starts = starts[keep]
    return hash_sorted_segments(sub, starts, ends[keep]), lengths[keep], starts


#: Characters given to the segmenter per call. A long text is cut in pieces at run
#: boundaries, which changes nothing (the segmenter splits blocks there anyway), and pieces
#: this size are cut faster than one long string: rjieba went from 16 to 22 MB/s of Chinese
#: text (its working memory stays in cache), and the token strings of one piece are freed
#: before the next is cut.
SEGMENT_PIECE = 1 << 15


def _token_lengths(text: str, segmenter: Segmenter) -> np.ndarray:
    """Length of each token of ``text`` (runs separated by spaces), piece by piece.

    ``bytearray(map(len, tokens))`` is the cheapest way from a list of strings to their
    lengths (half the time of ``np.fromiter``, which matters at 800,000 tokens a 4 MB of
    Chinese); a token of 256 characters or more makes it fail, and that piece is measured
    with ``np.fromiter`` instead.
    """
    out = []
    start = 0
    while start < len(text):
        cut = text.find(" ", start + SEGMENT_PIECE)
        end = len(text) if cut < 0 else cut + 1
        tokens = segmenter.cut(text[start:end])
        try:
            out.append(np.frombuffer(bytearray(map(len, tokens)), dtype=np.uint8))
        except ValueError:
            out.append(np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens)))
        start = end
    return np.concatenate(out)


# -- word features for SimHash ------------------------------------------------------------------
#: Weight of a word bigram relative to a word of median idf.
BIGRAM_WEIGHT = 0.5
#: Stop words keep this share of their weight.
STOP_FACTOR = 0.1
_STOP_WORDS = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing don down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which while who
whom why will with would you your yours yourself yourselves s t
"""
ENGLISH_STOP_WORDS = frozenset(_STOP_WORDS.split())


def _idf_path() -> Path | None:
    spec = importlib.util.find_spec("jieba")  # locates jieba without importing it (0.3 s)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "analyse" / "idf.txt"
    return path if path.is_file() else None


#: Bumped whenever what :func:`idf_table` computes from jieba's file changes (hashing, ids).
IDF_CACHE_VERSION = 1


def _idf_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("neardup"))


def _idf_inputs(path: Path) -> str:
    """What the IDF arrays depend on besides the code: jieba's file, by path, size and mtime."""
    st = path.stat()
    return f"{IDF_CACHE_VERSION}|{FEATURE_BITS}|{path}|{st.st_size}|{st.st_mtime_ns}"


@functools.cache
def idf_table() -> tuple[np.ndarray, np.ndarray, float]:
    """jieba's IDF table as (sorted feature ids of the words, float32 idf, median idf).

    Loaded once per process; a batch's words are then looked up at once. Parsing and hashing
    jieba's 270,000 words takes about 0.3 s, which every worker process and every small CLI
    scan would pay, so the arrays are kept in the user's cache folder (see
    :mod:`neardup_core.tables`), keyed by the file's path, size and mtime (a new jieba
    gives a new key). Without jieba's file every word gets the same idf, 1.0.
    """
    path = _idf_path()
    if path is None:
        return np.empty(0, np.uint64), np.empty(0, np.float32), 1.0

    def build() -> dict[str, np.ndarray]:
        ids, values, median = _parse_idf(path)
        return {"ids": ids, "values": values, "median": np.array(median, dtype=np.float64)}

    def check(a: dict[str, np.ndarray]) -> bool:
        ids, values, median = a.get("ids"), a.get("values"), a.get("median")
        return (ids is not None and values is not None and median is not None
                and ids.dtype == np.uint64 and values.dtype == np.float32
                and ids.shape == values.shape and median.shape == ())

    got = cached_arrays("idf", [__file__], _idf_inputs(path), build, check,
                        folder=_idf_cache_dir())
    return got["ids"], got["values"], float(got["median"])


def _parse_idf(path: Path) -> tuple[np.ndarray, np.ndarray, float]:
    parts = path.read_text(encoding="utf-8").split()
    words = parts[0::2]
    values = np.fromiter(map(float, parts[1::2]), dtype=np.float64, count=len(words))
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    keys = hash_partition(to_codes("".join(words)).astype(np.uint32), lengths)
    ids, first = np.unique(keys >> _ID_SHIFT, return_index=True)
    return ids, values[first].astype(np.float32), float(np.median(values))


def idf_of(hashes: np.ndarray) -> np.ndarray:
    """float32 idf of each word hash; words jieba does not know get the median idf."""
    return idf_of_ids(np.asarray(hashes, dtype=np.uint64) >> _ID_SHIFT)


def idf_of_ids(ids: np.ndarray) -> np.ndarray:
    """:func:`idf_of` by feature id (the top FEATURE_BITS bits of the word hash)."""
    keys, _, median = idf_table()
    ids = np.asarray(ids, dtype=np.uint64)
    if not keys.shape[0] or not ids.shape[0]:
        return np.full(ids.shape[0], median, dtype=np.float32)
    h = _idf_hash()
    # linear probing, all ids at once: the ids still looking move one slot on per step
    pos = (ids & h.mask).view(np.int64)
    found = np.take(h.keys, pos)
    hit = found == ids
    out = np.where(hit, np.take(h.values, pos), np.float32(median))
    more = np.flatnonzero(~hit & (found != _NO_ID))
    pos = pos[more]
    for _ in range(h.longest):
        if not more.shape[0]:
            break
        pos += 1
        pos &= h.mask_int
        found = np.take(h.keys, pos)
        hit = found == ids[more]
        out[more[hit]] = np.take(h.values, pos[hit])
        keep = ~hit & (found != _NO_ID)
        more, pos = more[keep], pos[keep]
    return out


#: Marks an empty slot of the idf hash table (ids have FEATURE_BITS < 63 bits).
_NO_ID = np.uint64(1 << 63)


@dataclass(frozen=True)
class _IdfHash:
    keys: np.ndarray     # uint64 (size,): a feature id or _NO_ID
    values: np.ndarray   # float32 (size,): its idf
    mask: np.uint64      # size - 1
    mask_int: int
    longest: int         # the furthest any id sits from its home slot


@functools.cache
def _idf_hash() -> _IdfHash:
    """jieba's idf table as an open-addressing hash table (home slot: the id's low bits).

    Features come grouped by document, so their ids are in no useful order: a binary search
    per id would jump around the 2 MB sorted table (three times slower), where this is one or
    two gathers. Once per process: from the cache folder, or built (about 0.1 s, 12 MB).
    """
    path = _idf_path()
    inputs = _idf_inputs(path) if path is not None else "no idf file"

    def check(a: dict[str, np.ndarray]) -> bool:
        keys, values, longest = a.get("keys"), a.get("values"), a.get("longest")
        return (keys is not None and values is not None and longest is not None
                and keys.dtype == np.uint64 and values.dtype == np.float32
                and keys.ndim == 1 and keys.shape == values.shape and keys.shape[0] >= 1
                and keys.shape[0] & (keys.shape[0] - 1) == 0
                and longest.dtype == np.int64 and longest.shape == (1,))

    def build() -> dict[str, np.ndarray]:
        h = _build_idf_hash()
        return {"keys": h.keys, "values": h.values,
                "longest": np.array([h.longest], dtype=np.int64)}

    got = cached_arrays("idf-hash", [__file__], inputs, build, check)
    table, vals = got["keys"], got["values"]
    for a in (table, vals):
        a.flags.writeable = False
    mask = table.shape[0] - 1
    return _IdfHash(table, vals, np.uint64(mask), mask, int(got["longest"][0]))


def _build_idf_hash() -> _IdfHash:
    keys, values, _ = idf_table()
    size = 1 << max(10, (2 * keys.shape[0] - 1).bit_length())  # at most half full
    mask = size - 1
    table = np.full(size, _NO_ID, dtype=np.uint64)
    vals = np.zeros(size, dtype=np.float32)
    pos = (keys & np.uint64(mask)).astype(np.int64)
    todo = np.arange(keys.shape[0])
    steps = 0
    while todo.shape[0]:
        p = pos[todo]
        free = table[p] == _NO_ID
        claim, first = np.unique(p[free], return_index=True)  # one id per free slot
        won = todo[free][first]
        table[claim] = keys[won]
        vals[claim] = values[won]
        placed = np.zeros(keys.shape[0], dtype=bool)
        placed[won] = True
        todo = todo[~placed[todo]]
        pos[todo] = (pos[todo] + 1) & mask
        steps += 1
    for a in (table, vals):
        a.flags.writeable = False
    return _IdfHash(table, vals, np.uint64(mask), mask, max(0, steps - 1))


@functools.cache
def _stop_table() -> tuple[np.uint64, np.ndarray]:
    """A collision-free 65,536-slot table of the stop words' feature ids, and its bit offset:
    membership is one gather and one compare per word, whatever the number of words."""
    words = sorted(ENGLISH_STOP_WORDS)
    lengths = np.array([len(w) for w in words], dtype=np.int64)
    ids = hash_partition(to_codes("".join(words)), lengths) >> _ID_SHIFT
    for offset in range(FEATURE_BITS - 16):
        slots = (ids >> np.uint64(offset)) & np.uint64(0xFFFF)
        if unique_sorted(slots).shape[0] == ids.shape[0]:
            table = np.full(1 << 16, np.uint64(1 << 63), dtype=np.uint64)  # never an id
            table[slots] = ids
            return np.uint64(offset), table
    raise AssertionError("no collision-free window for the stop word table")


def _is_stop_id(ids: np.ndarray) -> np.ndarray:
    offset, table = _stop_table()
    return np.take(table, ((ids >> offset) & np.uint64(0xFFFF)).astype(np.intp)) == ids


def _sublinear_tf(counts: np.ndarray) -> np.ndarray:
    """1 + log(count) for positive int counts, as float64."""
    table = _tf_table()
    if counts.shape[0] and int(counts.max()) < table.shape[0]:
        return np.take(table, counts)  # the same numbers, without a log per feature
    return _log_tf(counts)


def _log_tf(counts: np.ndarray) -> np.ndarray:
    return 1.0 + np.log(counts.astype(np.float64))


@functools.cache
def _tf_table() -> np.ndarray:
    """_log_tf of 0..4095 (entry 0 is never used), computed by the same numpy call."""
    t = np.ones(1 << 12, dtype=np.float64)
    t[1:] = _log_tf(np.arange(1, 1 << 12, dtype=np.int64))
    t.flags.writeable = False
    return t


#: Features are grouped per document by sorting (document << FEATURE_BITS | feature id), where
#: the id is the top FEATURE_BITS bits of the word or bigram hash; the id, re-mixed, is the 64-bit
#: hash SimHash votes with. Two distinct features of one document share an id with probability
#: about n**2 / 2**41: once in 200 documents of 100,000 distinct features, and then they merely
#: count as one. Sorting by document first keeps each document's features together, which
#: is what SimHash's vote counting wants (its tallies for one document stay in cache).
FEATURE_BITS = 40
DOC_BITS = 64 - FEATURE_BITS  # documents per batch: up to 2**24
_ID_SHIFT = np.uint64(DOC_BITS)
_FEATURE_SHIFT = np.uint64(FEATURE_BITS)
_ID_MASK = np.uint64((1 << FEATURE_BITS) - 1)


def _counted(doc: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document, feature id, count) of each distinct feature of each document, by document
    and then id."""
    key = np.left_shift(np.asarray(doc, dtype=np.int64).view(np.uint64), _FEATURE_SHIFT)
    key |= hashes >> _ID_SHIFT
    return _counted_keys(key)


def pairs(doc: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bigram hashes of consecutive hashes within each document, and their document."""
    bi = combine_windows(hashes, 2)
    bi_doc = doc[:-1] if doc.shape[0] else doc
    same = bi_doc == doc[1:]
    return bi[same], bi_doc[same]


@dataclass(frozen=True, slots=True, eq=False)
class WordStreams:
    """A batch's words in order: Chinese words from the segmenter and the other words (units),
    each with its document and whether it is a content word (bigrams are made of those)."""

    zh: np.ndarray             # uint64 word hashes
    zh_doc: np.ndarray         # int64
    zh_content: np.ndarray     # bool: two or more characters
    other: np.ndarray          # uint64 unit hashes of non-CJK words
    other_doc: np.ndarray      # int64
    other_content: np.ndarray  # bool: not an English stop word


def word_streams(a: Analysis, segmenter: Segmenter) -> WordStreams:
    if a.docs > 1 << DOC_BITS:
        raise ValueError(f"at most {1 << DOC_BITS} documents per batch, got {a.docs}")
    zh, zh_len, zh_doc = chinese_tokens(a, segmenter)
    if a.cjk.any():
        words = ~a.cjk
        other, other_doc = a.hashes[words], a.unit_docs[words]
    else:  # no CJK character: every unit is a word
        other, other_doc = a.hashes, a.unit_docs
    return WordStreams(zh, zh_doc, zh_len > 1, other, other_doc,
                       ~_is_stop_id(other >> _ID_SHIFT))


#: The three kinds of SimHash features, in the order their weights are documented.
FEATURE_KINDS = ("zh", "other", "bigram")


def feature_weights(kind: str, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """float64 weight of features of one kind from their ids and counts (see word_features)."""
    tf = _sublinear_tf(counts)
    median = idf_table()[2]
    if kind == "zh":
        return idf_of_ids(ids) * tf
    if kind == "other":
        return np.where(_is_stop_id(ids), STOP_FACTOR, 1.0) * median * tf
    if kind == "bigram":
        return BIGRAM_WEIGHT * median * tf
    raise ValueError(f"unknown feature kind {kind!r}")


def count_features(doc: np.ndarray, hashes: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document, feature id, count) of each distinct feature of each document, by document
    and then id."""
    return _counted(doc, hashes)


def word_features_many(a: Analysis, segmenter: Segmenter
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document, feature hash, weight) of every document of a batch; see :func:`word_features`.

    Hashes are uint64, weights float32, documents int64; features are unique per document.
    """
    w = word_streams(a, segmenter)
    zh_c, zh_cd = w.zh[w.zh_content], w.zh_doc[w.zh_content]
    ot_c, ot_cd = w.other[w.other_content], w.other_doc[w.other_content]
    n1 = max(0, zh_c.shape[0] - 1)
    bigrams = np.empty(n1 + max(0, ot_c.shape[0] - 1), dtype=np.uint64)
    crossing = (_bigram_keys(zh_cd, zh_c, a.docs, bigrams[:n1])
                + _bigram_keys(ot_cd, ot_c, a.docs, bigrams[n1:]))
    streams = {"zh": _feature_keys(w.zh_doc, w.zh), "other": _feature_keys(w.other_doc, w.other),
               "bigram": bigrams}
    docs, ids, weights = [], [], []
    for kind in FEATURE_KINDS:
        key = streams[kind]
        if key.shape[0]:
            d, f, cnt = _counted_keys(key, crossing if kind == "bigram" else 0)
            docs.append(d)
            ids.append(f)
            weights.append(feature_weights(kind, f, cnt))
    if not docs:
        return np.empty(0, np.int64), np.empty(0, np.uint64), np.empty(0, np.float32)
    return (np.concatenate(docs), splitmix64_inplace(np.concatenate(ids)),
            np.concatenate(weights, dtype=np.float32))


#: The largest key: marks the bigrams that straddle two documents, which sort last and are
#: then cut off by number (exact even if a real key had this value too).
_NO_KEY = np.uint64((1 << 64) - 1)


def _feature_keys(doc: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """document << FEATURE_BITS | feature id of each hash (uint64, a new array)."""
    key = np.right_shift(hashes, _ID_SHIFT)
    key |= np.left_shift(np.asarray(doc, dtype=np.int64).view(np.uint64), _FEATURE_SHIFT)
    return key


def _bigram_keys(doc: np.ndarray, hashes: np.ndarray, docs: int, out: np.ndarray) -> int:
    """Write the :func:`_feature_keys` of the bigrams of consecutive ``hashes`` (sorted by
    document) into ``out``; a bigram across two documents gets _NO_KEY. Returns how many do.

    The same keys as :func:`pairs` then :func:`_feature_keys`, without filtering and
    concatenating the bigram arrays.
    """
    n = out.shape[0]
    if n == 0:
        return 0
    combine_windows(hashes, 2, out=out)
    out >>= _ID_SHIFT
    out |= np.left_shift(np.asarray(doc[:-1], dtype=np.int64).view(np.uint64), _FEATURE_SHIFT)
    if docs == 1:
        return 0
    # the last bigram of each document but the last starts there and ends in the next one
    firsts = unique_sorted(np.searchsorted(doc, np.arange(1, docs)))
    cross = firsts[(firsts > 0) & (firsts <= n)] - 1
    out[cross] = _NO_KEY
    return cross.shape[0]


def _counted_keys(key: np.ndarray, dropped: int = 0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document, feature id, count) of each distinct :func:`_feature_keys` key, by document
    and then id; sorts ``key`` in place and leaves out its ``dropped`` largest (_NO_KEY)."""
    key.sort()
    if dropped:
        key = key[:key.shape[0] - dropped]
    n = key.shape[0]
    if n == 0:
        return np.empty(0, np.int64), key, np.empty(0, np.int64)
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(key[1:], key[:-1], out=new[1:])
    first = np.flatnonzero(new)
    counts = np.diff(first, append=n)
    u = key[first]
    return (u >> _FEATURE_SHIFT).view(np.int64), u & _ID_MASK, counts


def word_features(normalized: str | Analysis, segmenter: Segmenter
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Unique feature hashes (uint64) and weights (float32) of one text for weighted SimHash.

    * Chinese words (the segmenter over CJK runs): (1 + log tf) * jieba's idf, the median idf
      for words jieba's table lacks.
    * Other words: (1 + log tf) * the median idf, times STOP_FACTOR for English stop words.
    * Bigrams of consecutive *content* words (Chinese words of two or more characters, non-stop
      other words; Chinese and other words form separate sequences): (1 + log tf) *
      BIGRAM_WEIGHT * the median idf. A bag of words alone would score a shuffled text as a
      copy; bigrams make SimHash see some order without letting function words dominate.

    A feature's hash is its id (the top FEATURE_BITS bits of the word or bigram hash) passed
    through splitmix64, so the batch path can sort (id, document) pairs in one uint64.
    """
    a = normalized if isinstance(normalized, Analysis) else analyse(normalized)
    if a.docs != 1:
        raise ValueError("word_features takes one document; use word_features_many")
    _, hashes, weights = word_features_many(a, segmenter)
    return hashes, weights


__all__ = [
    "CJK",
    "FEATURE_KINDS",
    "SEP",
    "SEPARATOR",
    "WORD",
    "Analysis",
    "Segmenter",
    "WordStreams",
    "analyse",
    "analyse_codes",
    "char_class",
    "chinese_tokens",
    "chinese_words",
    "classify",
    "count_features",
    "feature_weights",
    "idf_of",
    "idf_table",
    "lines",
    "normalize",
    "normalize_codes",
    "normalize_joined",
    "normalize_many",
    "pairs",
    "shingle_hash",
    "shingle_hashes",
    "shingle_hashes_many",
    "shingle_keys_many",
    "shingle_set",
    "to_codes",
    "unit_hashes",
    "units",
    "word_features",
    "word_features_many",
    "word_streams",
]
