"""Which documents keep their first fingerprint when boilerplate lines are set aside.

The scan votes lines that a large share of the documents carry into boilerplate; leaving them
out of a document means reading and fingerprinting it a second time. Where they are a sliver of
the text (a Markdown marker, a "第一章 总则" heading, a one-line footer of a long report),
leaving them out moves the document's similarity to any other by about that share: less than
the MinHash estimate's own standard error at 128 slots (4 points at 0.6), and far too little to
make two unrelated documents look alike, which is what setting boilerplate aside is for. The
second read, though, costs what the first did: in a real collection of laws, each holding a
few such lines, every document was read twice, a large part of the scan. So a document whose
boilerplate lines hold less than :data:`NEGLIGIBLE_SHARE` of its characters keeps its first
fingerprint.

The vote knows lines by their hash only. Their lengths are learnt by reading a few documents
that hold them (:func:`candidates`, :func:`line_lengths`); a line whose length stays unknown
counts as long, so its documents are read again as before. The local and the Dask scan share
these functions, and so make the same choice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from neardup_core.hashing import hash64_lines
from neardup_core.text.normalise import normalize

__all__ = ["LEARN_MAX_CHARS", "LEARN_READS", "NEGLIGIBLE_SHARE", "candidates", "dropped_chars",
           "line_lengths", "note", "to_reread"]

#: Boilerplate lines holding less than this share of a document's (normalised) characters are
#: left in it: it is not read again.
NEGLIGIBLE_SHARE = 0.02
#: At most this many documents are read to learn the lengths of the boilerplate lines...
LEARN_READS = 32
#: ... none longer than this many characters.
LEARN_MAX_CHARS = 1 << 20


def _places(boiler: np.ndarray, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``lines``, where it would be in the sorted ``boiler`` and whether it is
    there."""
    pos = np.searchsorted(boiler, lines).clip(max=boiler.size - 1)
    return pos, boiler[pos] == lines


def dropped_chars(lines: np.ndarray, line_doc: np.ndarray, docs: int, boiler: np.ndarray,
                  lengths: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """Per document, the characters its boilerplate lines hold (each with its line break);
    infinite where one of them has an unknown length.

    ``lines`` are line hashes, ``line_doc`` the document of each, ``counts`` how many times it
    occurs there (None: once per entry); ``boiler`` is sorted and ``lengths`` (float64, NaN
    unknown) goes with it.
    """
    if not boiler.size or not lines.size:
        return np.zeros(docs, dtype=np.float64)
    pos, hit = _places(boiler, lines)
    size = lengths[pos[hit]]
    size = np.where(np.isnan(size), np.inf, size)
    if counts is not None:
        size = size * counts[hit]
    return np.bincount(line_doc[hit], weights=size, minlength=docs).astype(np.float64)


def to_reread(dropped: np.ndarray, chars: np.ndarray) -> np.ndarray:
    """Which documents leave out their boilerplate (and are read again): those holding some,
    at least NEGLIGIBLE_SHARE of their characters."""
    return (dropped > 0) & (dropped >= NEGLIGIBLE_SHARE * np.asarray(chars, dtype=np.float64))


def candidates(lines: np.ndarray, line_doc: np.ndarray, boiler: np.ndarray,
               chars: np.ndarray, paths: Sequence[str], limit: int | None = None
               ) -> list[tuple[int, int, str]]:
    """The documents to learn the lengths of the boilerplate lines from, best first, as
    ``(-distinct boilerplate lines held, chars, path)``: those holding the most such lines,
    the shortest of them first, then by path (a key that does not depend on how documents are
    numbered, so the batches of a Dask scan pick the same ones); at most ``limit`` (default
    LEARN_READS). Documents longer than LEARN_MAX_CHARS are never read for this."""
    limit = LEARN_READS if limit is None else limit
    if not boiler.size or not lines.size or limit <= 0:
        return []
    hit = _places(boiler, lines)[1]
    doc, line = line_doc[hit], lines[hit]
    order = np.lexsort((line, doc))
    doc, line = doc[order], line[order]
    first = np.ones(doc.size, dtype=bool)   # the first of each distinct (document, line)
    first[1:] = (doc[1:] != doc[:-1]) | (line[1:] != line[:-1])
    per_doc = np.bincount(doc[first], minlength=len(paths))
    chars = np.asarray(chars, dtype=np.int64)
    held = np.flatnonzero((per_doc > 0) & (chars <= LEARN_MAX_CHARS))
    neg, size = -per_doc[held], chars[held]
    order = np.lexsort((size, neg))
    if order.size > limit:  # the first ``limit``, and any tied with the last of them
        last = order[limit - 1]
        past = np.flatnonzero((neg[order] > neg[last])
                              | ((neg[order] == neg[last]) & (size[order] > size[last])))
        order = order[:past[0]] if past.size else order
    rows = [(int(neg[i]), int(size[i]), paths[held[i]]) for i in order.tolist()]
    return sorted(rows)[:limit]


def line_lengths(boiler: np.ndarray, texts: Iterable[str | None]) -> np.ndarray:
    """The length of each (sorted) ``boiler`` line with its line break, NaN where unknown,
    learnt from ``texts`` (raw document texts; None: one that could not be read), taken
    until every length is known."""
    lengths = np.full(boiler.size, np.nan, dtype=np.float64)
    if not boiler.size:
        return lengths
    for text in texts:
        if text is None:
            continue
        normalized = normalize(text)
        hashes = hash64_lines(normalized)
        pos, found = _places(boiler, hashes)
        hit = np.flatnonzero(found)
        if hit.size:
            split = normalized.split("\n")
            lengths[pos[hit]] = [len(split[i]) + 1 for i in hit.tolist()]
        if not np.isnan(lengths).any():
            break
    return lengths


def note(lines: int, need: int, clusters: int, changed: int, kept: int) -> str:
    """The scan's note on its boilerplate: how many lines, and the documents they were left
    out of (``changed``) or left in (``kept``: a sliver of their text)."""
    text = (f"{lines} lines found in at least {need} of {clusters} distinct documents were "
            f"treated as boilerplate and left out of the comparison of {changed} documents")
    if kept:
        text += (f" (and left in {kept} more, where they are under {NEGLIGIBLE_SHARE:.0%} of "
                 f"the text)")
    return text + "."
