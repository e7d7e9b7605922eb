"""Small numpy helpers used on hot paths.

numpy 2.3+ answers a plain ``np.unique(x)`` with a hash-based algorithm that is far slower
than sorting for the integer arrays neardup handles, so distinct values are taken by sorting
instead. Likewise a big array picked through a boolean mask whose values are mixed
(``x[mask]``) costs several times what ``x[np.flatnonzero(mask)]`` does (NumPy 2.4, 1.75
million edges, three arrays through one mask: 34 ms against 6), so the hot paths of the
grouping take the positions once and index with them.
"""

from __future__ import annotations

import numpy as np


def unique_sorted(x: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-d array, ascending (``np.unique`` without the slow path)."""
    y = np.sort(np.asarray(x).ravel())
    if y.size < 2:
        return y
    keep = np.empty(y.size, dtype=bool)
    keep[0] = True
    np.not_equal(y[1:], y[:-1], out=keep[1:])
    return y[keep]


def renumbering(n: int, docs: np.ndarray) -> np.ndarray:
    """Per document of ``n``, its place among ``docs`` (sorted), or -1 when it is not one:
    what restricting a problem to ``docs`` renumbers them to."""
    new = np.full(n, -1, dtype=np.int64)
    new[docs] = np.arange(docs.shape[0])
    return new


def renumbered_order(order: np.ndarray, new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An order of all documents restricted to those ``new`` keeps (:func:`renumbering`), in
    their new numbers, and each one's place in it."""
    kept = new[order]
    kept = kept[np.flatnonzero(kept >= 0)]
    pos = np.empty(kept.shape[0], dtype=np.int64)
    pos[kept] = np.arange(kept.shape[0])
    return kept, pos


def renumbered_pairs(a: np.ndarray, b: np.ndarray, new: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs (a, b) in new numbers (:func:`renumbering`), and which of them have both
    ends kept (the others' new numbers are -1)."""
    na, nb = new[a], new[b]
    return na, nb, (na >= 0) & (nb >= 0)


def run_positions(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The positions ``starts[i] .. starts[i] + counts[i] - 1`` of every run, concatenated."""
    counts = np.asarray(counts, dtype=np.int64)
    offsets = np.cumsum(counts) - counts
    return np.repeat(np.asarray(starts, dtype=np.int64) - offsets, counts) + \
        np.arange(int(counts.sum()), dtype=np.int64)


def lowest_in_runs(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """For consecutive runs of ``counts`` entries of ``values`` (integers >= 0), the position of
    each run's lowest value, the first one on ties. Runs must not be empty."""
    m = values.shape[0]
    key = np.asarray(values, dtype=np.int64) * np.int64(max(m, 1)) + np.arange(m, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    return np.minimum.reduceat(key, np.cumsum(counts) - counts) % max(m, 1)


def first_of_class(classes: np.ndarray) -> np.ndarray:
    """For each entry, the position of the first entry of its class (classes are integers
    >= 0, e.g. :func:`neardup_core.result.text_classes`): the document that stands for its
    identical copies."""
    c = np.asarray(classes, dtype=np.int64)
    n = c.shape[0]
    if not n:
        return np.empty(0, np.int64)
    top = int(c.max())
    if top <= 4 * n and int(c.min()) >= 0:  # ranks (text_classes): each one's lowest position,
        # with no sort (0.1 ms against the sort's 2.7 at 40,000 documents; two stages ask)
        first = np.full(top + 1, n, np.int64)
        np.minimum.at(first, c, np.arange(n, dtype=np.int64))
        return first[c]
    order = np.argsort(c, kind="stable")  # within a class, ascending positions
    s = c[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(s[1:], s[:-1], out=new[1:])
    out = np.empty(n, np.int64)
    out[order] = order[new][np.cumsum(new) - 1]
    return out
