"""Units and shingles: what a document's MinHash fingerprint is made of.

The contract every score relies on (see ``pairs/scoring.py``): after
:func:`~neardup_core.text.normalise.normalize`, a text is a sequence of *units*: runs of
letters, digits and marks ("words", any script but CJK) and single CJK characters (Han, kana,
hangul: one character, one unit). Everything else, punctuation and whitespace included, only
separates units. *Shingles* are the runs of ``n`` consecutive units, across line breaks; a text
with fewer than ``n`` units (but at least one) has one shingle made of all of them.
:func:`units` and :func:`shingle_set` state this plainly, one character at a time;
:func:`analyse` and :func:`shingle_hashes` compute the same thing with numpy, and tests check
that ``{shingle_hash(s) for s in shingle_set(t, n)}`` equals the fast hashes.

Like normalisation, everything works on a NUL-joined batch of documents (:class:`Analysis`
keeps each unit's document).
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
)
from neardup_core.text.normalise import CJK, WORD, char_class, classify, to_codes

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


# -- units and shingles: vectorised ---------------------------------------------
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


def docs_of_sorted(positions: np.ndarray, separators: np.ndarray, docs: int) -> np.ndarray:
    """Document index (int64) of each of the sorted ``positions`` in a batch of ``docs``
    documents whose ``separators`` (sorted) are at the given positions."""
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
        unit_docs = docs_of_sorted(starts, seps, docs)
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


__all__ = [
    "SHINGLE_JOIN",
    "Analysis",
    "analyse",
    "analyse_codes",
    "docs_of_sorted",
    "shingle_hash",
    "shingle_hashes",
    "shingle_hashes_many",
    "shingle_keys_many",
    "shingle_set",
    "unit_hashes",
    "units",
]
