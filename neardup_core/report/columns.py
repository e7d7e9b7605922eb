"""A report's cells worked out a column at a time, in exactly the words of the per-value
functions they stand for.

200,000 files make about 160,000 report lines; a Python call per cell is most of the time a
writer takes (issue 22 asks for 50 MB a second). So the numbers of a block of lines are turned
into text with numpy, each distinct text made once, and a block's lines are put together by
interleaving its columns into one list joined once (:func:`interleave`), not by formatting
each line. Every fast path here falls back on the per-value function for whatever it cannot
word exactly (a NaN, a negative zero, a value on a rounding tie), and the tests hold each to
that function over random and edge values.
"""

from __future__ import annotations

import operator
import os
import posixpath
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

import numpy as np

__all__ = ["blocks", "decimal_texts", "interleave", "pick", "split_paths", "take"]

T = TypeVar("T")

#: Above this a scaled value may lose the unit digit to rounding error: worded one by one.
_EXACT_BELOW = float(2 ** 40)
#: How far from a rounding tie a scaled value must lie for its rounding to be sure: its error
#: is at most half a unit in the last place, under 2**-13 below ``_EXACT_BELOW``.
_TIE_MARGIN = 1e-3


def decimal_texts(values: np.ndarray, digits: int, fmt: Callable[[float], str], *,
                  scale: float = 1.0, below_one_at_most: int | None = None,
                  dress: Callable[[str], str] | None = None,
                  nan: str | None = None) -> list[str]:
    """``fmt(x)`` of each value, where ``fmt(x)`` is ``dress(f"{x * scale:.{digits}f}")``
    (``"%"`` formats multiply by 100 first, as ``scale=100`` does here) except that a value
    under 1 is worded at most ``below_one_at_most`` units of the last digit (so 0.9996 is
    never "100.0%": :func:`~neardup_core.report.wording.percent`). ``dress`` (a suffix, a
    padding) is called once per distinct text; ``nan``, when given, is ``fmt(nan)`` (a
    column of scores not computed is worded at once too).

    Python rounds the exact binary value half to even; ``rint`` of the scaled value does the
    same wherever the scaled value is not within rounding error of a tie, and ``fmt`` words
    the rest (ties, NaN, infinities, negatives, huge values)."""
    x = np.asarray(values, dtype=np.float64).ravel()
    if not x.size:
        return []
    with np.errstate(over="ignore", invalid="ignore"):
        d = x * scale if scale != 1.0 else x
        t = d * float(10 ** digits)
        ok = ((t < _EXACT_BELOW) & ~np.signbit(d)
              & (np.abs(t - np.floor(t) - 0.5) > _TIE_MARGIN))
    k = np.rint(np.where(ok, t, 0.0)).astype(np.int64)
    if below_one_at_most is not None:
        k = np.where((x < 1.0) & (k > below_one_at_most), below_one_at_most, k)
    top = int(k.max())
    unit = 10 ** digits
    if top <= max(4096, 4 * x.size):  # no sort: each value present is marked, then ranked
        seen = np.zeros(top + 1, dtype=bool)
        seen[k] = True
        distinct = np.flatnonzero(seen).tolist()
        inverse = (np.cumsum(seen) - 1)[k]
    else:
        found, inverse = np.unique(k, return_inverse=True)
        distinct = found.tolist()
    words = [_fixed(q, unit, digits) for q in distinct]
    out = take(words if dress is None else list(map(dress, words)), inverse)
    if not ok.all():
        if nan is not None:
            missing = np.isnan(x)
            out = _put(out, missing, nan)
            ok |= missing
        rest = np.flatnonzero(~ok)
        # once per distinct value (by its bits: -0.0 is not 0.0): ties repeat, e.g. MinHash
        # estimates k/128 that fall exactly on half a unit of the last digit
        _, first, which = np.unique(x[rest].view(np.int64), return_index=True,
                                    return_inverse=True)
        worded = [fmt(float(v)) for v in x[rest[first]].tolist()]
        for i, w in zip(rest.tolist(), which.ravel().tolist(), strict=True):
            out[i] = worded[w]
    return out


def _put(texts: list[str], where: np.ndarray, text: str) -> list[str]:
    """``texts`` with ``text`` where ``where`` is true."""
    column = np.empty(len(texts), dtype=object)
    column[:] = texts
    column[where] = text
    return column.tolist()


def _fixed(k: int, unit: int, digits: int) -> str:
    """The integer ``k`` of units of the last digit as a decimal: 1234, 1 digit -> "123.4"."""
    if not digits:
        return str(k)
    q, r = divmod(k, unit)
    return f"{q}.{r:0{digits}d}"


def blocks(offsets: np.ndarray, lines: int = 16_384) -> Iterator[tuple[int, int]]:
    """The groups in runs ``(g0, g1)`` of about ``lines`` members each: what a writer puts
    together at once (memory stays that of a block, whatever the report's size)."""
    groups = len(offsets) - 1
    g0 = 0
    while g0 < groups:
        g1 = int(np.searchsorted(offsets, offsets[g0] + lines, side="right")) - 1
        g1 = min(groups, max(g1, g0 + 1))
        yield g0, g1
        g0 = g1


def pick(items: Sequence[T], index: np.ndarray) -> Sequence[T]:
    """``[items[i] for i in index]``, through :func:`operator.itemgetter` (a block's
    documents: a list comprehension over them costs twice as much)."""
    where = index.tolist()
    if len(where) < 2:
        return [items[i] for i in where]
    return operator.itemgetter(*where)(items)


def take(words: Sequence[str], index: np.ndarray) -> list[str]:
    """``[words[i] for i in index]``, at numpy's speed."""
    table = np.empty(len(words), dtype=object)
    table[:] = words
    return table[np.asarray(index, dtype=np.int64)].tolist()


def interleave(columns: Sequence[Sequence[str]]) -> str:
    """The lines made of ``columns`` side by side (each column one string per line, holding
    its own separators): ``"".join`` of column 0 line 0, column 1 line 0, ..., column 0 line
    1..."""
    width = len(columns)
    n = len(columns[0])
    cells: list[str] = [""] * (width * n)
    for j, column in enumerate(columns):
        cells[j::width] = column
    return "".join(cells)


def split_paths(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """``os.path.split`` of each path, as two lists: the folders and the names."""
    if os.path is not posixpath:
        pairs = [os.path.split(p) for p in paths]
        return [h for h, _ in pairs], [t for _, t in pairs]
    heads: list[str] = []
    names: list[str] = []
    seen: dict[str, str] = {}
    for head, slash, name in map(str.rpartition, paths, ["/"] * len(paths)):
        names.append(name)
        folder = seen.get(head)
        if folder is None:
            if head:  # the head keeps its slashes only when it is nothing else ("//x")
                whole = head + slash
                folder = seen[head] = whole.rstrip("/") or whole
            else:  # "/x" is in "/", "x" in ""
                folder = slash
        heads.append(folder)
    return heads, names
