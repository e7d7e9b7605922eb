"""Winnowed shingle fingerprints: the sample of a document's shingles that excerpts are found by.

Schleimer, Wilkerson and Aiken, "Winnowing: local algorithms for document fingerprinting"
(SIGMOD 2003), as MOSS and Dolos use it: of every window of WINDOW consecutive shingle hashes,
the smallest is selected. The choice depends only on the window's own shingles, so a passage two
documents share selects the same hashes in both, wherever it sits in either: any shared run of
WINDOW + shingle - 1 units (10 words or CJK characters with the default 3-unit shingles) is
guaranteed a common hash, and longer runs share about 2 / (WINDOW + 1) of their shingles. That
is what lets the scan find "most of A is inside B" from an inverted index of these hashes
without comparing all pairs (:mod:`neardup_core.pairs.containment`), and why the set is small
enough to keep for 100,000 documents (about a fifth of the shingles, 4 bytes each).

Hashes are the 32-bit shingle keys MinHash uses (:func:`~neardup_core.fingerprint.minhash.hash32`):
a collision can only add a candidate, and every candidate is verified on the exact shingle sets
before it is reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from neardup_core.hashing import hash64_lines
from neardup_core.text.normalise import lines, normalize
from neardup_core.text.shingles import analyse, shingle_hashes

__all__ = ["WINDOW", "WinnowSets", "exact_shingles", "winnow", "winnow_many"]

#: Shingle hashes per winnowing window. Larger windows keep fewer hashes (less memory, fewer
#: candidates) and guarantee only longer shared runs; 8 keeps about 22 % of the shingles.
WINDOW = 8

_EMPTY = np.empty(0, np.uint32)
_EMPTY.flags.writeable = False


@dataclass(frozen=True, slots=True, eq=False)
class WinnowSets:
    """The winnowed sets of a scan's documents end to end: document ``i``'s set is
    ``values[offsets[i]:offsets[i + 1]]``.

    One array for the collection, not one per document: 100,000 documents hold about ten
    million winnowed hashes, and as 100,000 arrays each one's object and buffer cost a third as
    much again as the hashes; one array is also what the candidate index is built from
    (:func:`neardup_core.pairs.containment.candidates`) and can be dropped whole once it has
    been. Batches of documents (as workers send them) join with :meth:`concat`.
    """

    values: np.ndarray   # uint32, every set in document order, each sorted
    offsets: np.ndarray  # int64, len + 1 ascending positions into ``values``

    def __post_init__(self) -> None:
        if self.offsets.ndim != 1 or self.offsets.shape[0] < 1:
            raise ValueError("offsets must be a 1-d array of at least one position")
        if int(self.offsets[0]) != 0 or int(self.offsets[-1]) != self.values.shape[0]:
            raise ValueError("offsets must run from 0 to the number of values")

    @classmethod
    def of(cls, sets: Iterable[np.ndarray]) -> WinnowSets:
        """From one array per document (e.g. each fingerprint's ``winnow``)."""
        parts = [np.asarray(w, np.uint32) for w in sets]
        sizes = np.fromiter((w.shape[0] for w in parts), np.int64, count=len(parts))
        values = np.concatenate(parts) if parts else np.empty(0, np.uint32)
        return cls(values.astype(np.uint32, copy=False), np.r_[np.int64(0), np.cumsum(sizes)])

    @classmethod
    def concat(cls, parts: Sequence[WinnowSets]) -> WinnowSets:
        """The documents of ``parts``, one after another."""
        if not parts:
            return cls(np.empty(0, np.uint32), np.zeros(1, np.int64))
        values = np.concatenate([p.values for p in parts])
        shift = np.cumsum([0] + [p.values.shape[0] for p in parts[:-1]])
        offsets = np.concatenate([np.zeros(1, np.int64)] + [
            p.offsets[1:] + s for p, s in zip(parts, shift.tolist(), strict=True)])
        return cls(values, offsets)

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    def __getitem__(self, i: int) -> np.ndarray:
        return self.values[self.offsets[i]:self.offsets[i + 1]]

    def sizes(self) -> np.ndarray:
        """Each document's number of winnowed hashes (int64)."""
        return np.diff(self.offsets)


def winnow(hashes: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """The winnowed set of one document's shingle hashes, in order: sorted unique uint32."""
    h = np.asarray(hashes, dtype=np.uint32)
    if h.shape[0] == 0:
        return _EMPTY
    if h.shape[0] <= window:
        return np.array([h.min()], dtype=np.uint32)
    starts = np.arange(h.shape[0] - window + 1)
    picked = starts + sliding_window_view(h, window).argmin(axis=1)
    return np.unique(h[picked])


def winnow_many(hashes: np.ndarray, doc: np.ndarray, docs: int, window: int = WINDOW
                ) -> list[np.ndarray]:
    """:func:`winnow` of each document of a batch: ``hashes`` (uint32) in document order,
    ``doc`` the (sorted) document of each; windows never straddle two documents. One array
    per document, read-only."""
    h = np.asarray(hashes, dtype=np.uint32)
    d = np.asarray(doc, dtype=np.int64)
    out: list[np.ndarray] = [_EMPTY] * docs
    if h.shape[0] == 0:
        return out
    bounds = np.searchsorted(d, np.arange(docs + 1))
    counts = np.diff(bounds)
    picks: list[np.ndarray] = []
    if h.shape[0] >= window:
        starts = np.flatnonzero(d[:h.shape[0] - window + 1] == d[window - 1:])
        arg = sliding_window_view(h, window)[starts].argmin(axis=1)
        picks.append(starts + arg)
    short = np.flatnonzero((counts > 0) & (counts < window))
    for i in short.tolist():  # a document shorter than a window: its smallest hash
        picks.append(np.array([bounds[i] + int(h[bounds[i]:bounds[i + 1]].argmin())]))
    if not picks:
        return out
    pos = np.concatenate(picks)
    key = np.unique((d[pos].astype(np.uint64) << np.uint64(32)) | h[pos].astype(np.uint64))
    kdoc = (key >> np.uint64(32)).astype(np.int64)
    kval = (key & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    kval.flags.writeable = False
    at = np.searchsorted(kdoc, np.arange(docs + 1))
    for i in np.flatnonzero(np.diff(at)).tolist():
        out[i] = kval[at[i]:at[i + 1]]
    return out


def exact_shingles(text: str, shingle: int = 3, drop_lines: np.ndarray | None = None
                   ) -> np.ndarray:
    """The sorted distinct 64-bit hashes of a raw text's shingles, as the scan fingerprints it
    (normalised; lines whose hash64 is in ``drop_lines`` set aside unless all of them are):
    what an excerpt's containment is verified on."""
    norm = normalize(text)
    if drop_lines is not None and len(drop_lines) and norm:
        hit = np.isin(hash64_lines(norm), np.asarray(drop_lines, np.uint64))
        if hit.any() and not hit.all():
            norm = "\n".join(compress(lines(norm), (~hit).tolist()))
    return np.unique(shingle_hashes(analyse(norm).hashes, shingle))
