"""Shared pieces of the grouping modes: edges as graphs, checks, orders and the flat assembly.

Every mode (:mod:`~neardup_core.grouping.connected`, :mod:`~neardup_core.grouping.strict`,
:mod:`~neardup_core.grouping.cohesive`) takes pairs ``a``/``b``/``score`` of document indices
and a rank per document (lower: preferred as the reference), and returns its groups in one
order: largest first, then by reference index; inside a group the reference, then the others
by descending score against it, then index (:func:`assemble_flat`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_array, csr_matrix
from scipy.sparse.csgraph import connected_components

#: ``pair_scores(ref, others) -> (score, distance, jaccard)``: scores of pairs the edges do not
#: hold (``ScanResult.pair_scores``); ``ref`` is one index or an array as long as ``others``.
PairScores = Callable[[int | np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]


def within_two_pairs(n: int, a: np.ndarray, b: np.ndarray, chosen: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(chosen document, other) for every document one or two of the pairs (a, b) away from
    one of ``chosen`` (int64 arrays; the chosen document itself left out)."""
    chosen = np.asarray(chosen, dtype=np.int64)
    if not chosen.size or not np.asarray(a).size:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    ends = (np.concatenate([a, b]).astype(np.int64), np.concatenate([b, a]).astype(np.int64))
    adjacent = csr_matrix((np.ones(ends[0].size, dtype=np.int32), ends), shape=(n, n))
    pick = csr_matrix((np.ones(chosen.size, dtype=np.int32),
                       (np.arange(chosen.size), chosen)), shape=(chosen.size, n))
    one = pick @ adjacent
    rows, right = (one + one @ adjacent).nonzero()
    left = chosen[rows]
    mask = left != right
    return left[mask], right[mask].astype(np.int64)



def graph(n: int, a: np.ndarray, b: np.ndarray, data: np.ndarray) -> csr_matrix:
    """One stored entry per edge (row a, column b); parallel edges are kept, not summed."""
    if a.size and np.any(a[1:] < a[:-1]):
        order = np.argsort(a, kind="stable")  # input is mostly sorted runs: cheap
        a, b, data = a[order], b[order], data[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(a, minlength=n), out=indptr[1:])
    idx_type = np.int32 if n < 2**31 and a.size < 2**31 else np.int64
    return csr_matrix((data, b.astype(idx_type), indptr.astype(idx_type)), shape=(n, n))


def components(n: int, a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    """(number of components, int64 component label per document) of the edges (a, b)."""
    ncomp, label = connected_components(graph(n, a, b, np.ones(a.size, dtype=np.int8)),
                                        directed=True, connection="weak")
    # csgraph labels are int32: widen before any label * n arithmetic overflows
    return ncomp, label.astype(np.int64)


def check_pairs(n_docs: int, a: np.ndarray, b: np.ndarray, score: np.ndarray, rank: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pairs and ranks as flat int64 arrays (scores as given), checked against ``n_docs``
    (:class:`ValueError`), without pairs of a document with itself."""
    a = np.asarray(a).astype(np.int64, copy=False).ravel()
    b = np.asarray(b).astype(np.int64, copy=False).ravel()
    s = np.asarray(score).ravel()
    r = np.asarray(rank).astype(np.int64, copy=False).ravel()
    if not a.shape == b.shape == s.shape:
        raise ValueError(f"a, b and score differ in length: {a.size}, {b.size}, {s.size}")
    if r.shape[0] != n_docs:
        raise ValueError(f"rank has {r.shape[0]} entries for {n_docs} documents")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n_docs):
        raise ValueError(f"pair indices must be in [0, {n_docs})")
    loops = a == b
    if loops.any():  # a document paired with itself says nothing about grouping
        a, b, s = a[~loops], b[~loops], s[~loops]
    return a, b, s, r


def dense_rank(x: np.ndarray) -> tuple[int, np.ndarray]:
    """(number of distinct values, rank of each value among them), by one argsort; integers
    spread over no more than a few times their count (group keys, text classes) by marking
    each value present and counting, with no sort (a COHESIVE regroup at 10^6 documents
    ranked 0.4-0.6 million keys twice)."""
    if x.dtype.kind in "iu" and x.size:
        low, high = int(x.min()), int(x.max())
        if high - low <= 8 * x.size + 4096:
            at = (x - low).astype(np.intp, copy=False)
            seen = np.zeros(high - low + 1, dtype=bool)
            seen[at] = True
            rank = np.cumsum(seen, dtype=np.int32 if seen.size < 2**31 else np.int64)
            return int(rank[-1]), rank[at].astype(np.int64) - 1  # (int32: half the writing)
    order = np.argsort(x)
    sx = x[order]
    new = np.ones(x.size, dtype=bool)
    new[1:] = sx[1:] != sx[:-1]
    rank = np.empty(x.size, dtype=np.int64)
    rank[order] = np.cumsum(new) - 1
    return int(new.sum()), rank


def rank_order(rank: np.ndarray) -> np.ndarray:
    """Documents by (rank, index), with one fast sort of a packed key when it fits."""
    n = rank.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.int64)
    r = rank - rank.min()
    if int(r.max()) < (2**62) // n:
        return np.sort(r * n + np.arange(n)) % n
    return np.lexsort((np.arange(n), rank))



def split_groups(flat: np.ndarray, offsets: np.ndarray) -> list[np.ndarray]:
    """Groups flat with their offsets -> one array of members per group (views of ``flat``)."""
    return [flat[lo:hi] for lo, hi in itertools.pairwise(offsets.tolist())]


def no_groups() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """No groups, as :func:`assemble_flat` gives them."""
    return (np.empty(0, dtype=np.int64), np.zeros(1, dtype=np.int64),
            np.empty(0, dtype=np.float64), np.empty(0, dtype=np.float64))


def assemble_flat(n: int, docs: np.ndarray, comp: np.ndarray, is_ref: np.ndarray,
                  sref: np.ndarray, comp_size: np.ndarray, comp_ref: np.ndarray,
                  comp_weak: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The groups (size desc, reference), members (reference, score desc, index), as (members
    flat, offsets, weakest per group, score against the reference per member): no Python
    object per group. ``comp_ref`` is one member of each component, the one ``is_ref``
    marks."""
    layout = flat_layout(n, docs, comp, is_ref, comp_size, comp_ref)
    return flat_members(n, layout, sref, comp_weak)


@dataclass(frozen=True)
class FlatLayout:
    """What :func:`assemble_flat` reads off the groups before the members' scores: the
    groups in order, where each goes, and which documents are in a group of two or more
    (``keep``: their places in the documents given; ``docs``, ``comp``, ``is_ref`` those
    documents' own), the groups' offsets. The scores are not needed for it, so a caller may
    compute both side by side."""

    gorder: np.ndarray
    gpos: np.ndarray
    keep: np.ndarray
    docs: np.ndarray
    comp: np.ndarray
    is_ref: np.ndarray
    offsets: np.ndarray


def flat_layout(n: int, docs: np.ndarray, comp: np.ndarray, is_ref: np.ndarray,
                comp_size: np.ndarray, comp_ref: np.ndarray) -> FlatLayout:
    """The :class:`FlatLayout` of :func:`assemble_flat`'s groups."""
    gids = np.flatnonzero(comp_size >= 2)
    gorder = gids[group_order(n, comp_size[gids], comp_ref[gids])]
    gpos = np.empty(comp_size.shape[0], dtype=np.int64)
    gpos[gorder] = np.arange(gorder.shape[0])
    keep = np.flatnonzero(comp_size[comp] >= 2)
    offsets = np.zeros(gorder.shape[0] + 1, dtype=np.int64)
    np.cumsum(comp_size[gorder], out=offsets[1:])
    return FlatLayout(gorder, gpos, keep, docs[keep], comp[keep], is_ref[keep], offsets)


def flat_members(n: int, layout: FlatLayout, sref: np.ndarray, comp_weak: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`assemble_flat` from its :func:`flat_layout` and the scores against the
    references (``sref``, one per document given to the layout)."""
    docs, is_ref, gorder = layout.docs, layout.is_ref, layout.gorder
    sref = sref[layout.keep]
    sc = np.where(np.isnan(sref), -np.inf, sref)  # an unknown score sorts last
    sc[is_ref] = 1.0  # alone in its major key: any score, one that keeps the keys short
    perm = member_order(n, docs, layout.gpos[layout.comp], gorder.shape[0],
                        (~is_ref).astype(np.int8), sc)
    flat = docs[perm]
    # each member's score against its reference, in the same order (1.0 for the reference)
    sflat = np.where(is_ref[perm], 1.0, sref[perm])
    return flat, layout.offsets, comp_weak[gorder].astype(np.float64), sflat


def group_order(n: int, size: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """The groups of ``size`` members and reference ``ref`` by size descending, then
    reference. With references distinct documents in [0, n) and sizes below 2^15 (any real
    result), by marking the references and one radix sort of the sizes: no comparison sort
    (an argsort of 190,000 group keys cost a COHESIVE jump at 10^6 documents 10 ms on the
    2-core VM here, this 2)."""
    g = size.shape[0]
    if not g:
        return np.empty(0, dtype=np.int64)
    biggest = int(size.max())
    if biggest < 2**15 and int(ref.min()) >= 0 and int(ref.max()) < n:
        seen = np.zeros(n, dtype=bool)
        seen[ref] = True
        rank = np.cumsum(seen, dtype=np.int32 if n < 2**31 else np.int64)
        if int(rank[-1]) == g:  # every reference distinct
            by_ref = np.empty(g, dtype=np.int64)
            by_ref[rank[ref] - 1] = np.arange(g)
            smaller = (biggest - size[by_ref]).astype(np.int16)
            return by_ref[np.argsort(smaller, kind="stable")]  # radix: int16
    return np.lexsort((ref, biggest - size))


def member_order(n: int, docs: np.ndarray, group: np.ndarray, ngroups: int,
                 state: np.ndarray, sc: np.ndarray) -> np.ndarray:
    """``np.lexsort((docs, -sc, state, group))`` for distinct ``docs`` in [0, n), groups in
    [0, ngroups) and small integers ``state`` >= 0 (the reference first, ...): a sort inside
    each group (:func:`sorted_in_rows`) of one integer key, the score as its
    :func:`descending_score_key` where it has one (float32 in [0, 1]: the pairs' scores).
    A sort of one key packing the group too cost twice as much or more: the sort was the
    largest step of a regroup at 10^6 documents."""
    m = docs.shape[0]
    if not m:
        return np.empty(0, dtype=np.int64)
    score = _descending_key_or_last(sc)
    if score is None:  # scores that are no float32 in [0, 1]: the float sort
        return np.lexsort((docs, -sc, state, group))
    # documents ascending (as the modes give them) sort as their places do: those are packed
    ascending = m < 2 or bool((docs[1:] > docs[:-1]).all())
    tie_bits = max(int((m if ascending else n) - 1).bit_length(), 1)
    score_bits = max(int(score.max()).bit_length(), 1)
    state_bits = max(int(state.max()).bit_length(), 1)
    if state_bits + score_bits + tie_bits <= 62 and int(state.min()) >= 0 \
            and int(docs.min()) >= 0 and int(docs.max()) < n:
        key = state.astype(np.int64) << (score_bits + tie_bits)
        key |= score.astype(np.int64) << tie_bits
        key |= np.arange(m, dtype=np.int64) if ascending else docs.astype(np.int64)
        got = sorted_in_rows(ngroups, group, key)
        if got is not None:
            return got
    return np.lexsort((docs, score, state, group))


def _descending_key_or_last(sc: np.ndarray) -> np.ndarray | None:
    """:func:`descending_score_key`, with unknown scores (-inf, NaN) after every other, NaN
    last, as a sort of ``-sc`` puts them."""
    nan, low = np.isnan(sc), sc == -np.inf
    if not (nan.any() or low.any()):
        return descending_score_key(sc)
    score = descending_score_key(np.where(nan | low, 0.0, sc))
    if score is None:
        return None
    score[np.flatnonzero(low)] = ONE_BITS + 1
    score[np.flatnonzero(nan)] = ONE_BITS + 2
    return score


def sorted_in_rows(nrows: int, row: np.ndarray, key: np.ndarray) -> np.ndarray | None:
    """The positions of ``row``/``key`` in the order of (row, key), rows in [0, nrows), keys
    integers >= 0 distinct within a row; None when two are the same (nothing is ordered).

    SciPy's sparse matrices keep their entries row by row, each row's column indices
    sorted: making one of (row, key) is a counting sort of the rows and a sort inside each,
    compiled, where a sort of one packed key costs n log n. At 10^6 documents (groups of a
    few members, 0.67 million of them) that is 10 ms against 33 for the packed key on the
    2-core VM here, whose NumPy sorts without AVX-512."""
    m = row.shape[0]
    if not m:
        return np.empty(0, dtype=np.int64)
    width = int(key.max()) + 1
    grid = coo_array((np.arange(m, dtype=np.int64), (row, key)), shape=(nrows, width)).tocsr()
    grid.sum_duplicates()  # both done by tocsr already (then no-ops), as documented
    grid.sort_indices()
    if grid.data.shape[0] != m:  # two entries at one (row, key) were summed into one
        return None
    return grid.data


#: 1.0's bits as a float32: a score in [0, 1] as ``ONE_BITS`` less its bits sorts descending.
ONE_BITS = int(np.float32(1.0).view(np.int32))


def descending_score_key(scores: np.ndarray) -> np.ndarray | None:
    """An integer per score, below 2**30, that sorts as the scores do descending, exactly: when
    every score is a float32 value in [0, 1] (the pairs' scores are float32; -0.0 counts as
    0.0), the bits of that float32 (for non-negative floats they order as the values do).
    None otherwise (the caller sorts the floats)."""
    score = scores.astype(np.float32) + np.float32(0.0)  # -0.0 as 0.0
    if not (np.array_equal(score, scores) and bool((score >= 0.0).all())
            and bool((score <= 1.0).all())):
        return None
    return ONE_BITS - score.view(np.int32).astype(np.int64)


def unique_edges(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One edge per pair (lo, hi), keeping its strongest score; cheap for clean input."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    code = lo * n + hi
    if code.size < 2 or bool((code[1:] > code[:-1]).all()):
        return lo, hi, s
    sc = np.sort(code)  # fast; only a real repeat needs the slower dedupe below
    if bool((sc[1:] != sc[:-1]).all()):
        return lo, hi, s
    order = np.lexsort((-s.astype(np.float64), code))
    code, s = code[order], s[order]
    first = np.ones(code.size, dtype=bool)
    first[1:] = code[1:] != code[:-1]
    code, s = code[first], s[first]
    return code // n, code % n, s

