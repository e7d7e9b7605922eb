"""Edges -> groups: the entry to the grouping, one function for the three group modes.

Three group semantics (``GroupMode``), each in its module:

* CONNECTED (:mod:`~neardup_core.grouping.connected`): the connected components of the pairs
  at or above the threshold; ``weakest`` is the group's weakest link.
* STRICT (:mod:`~neardup_core.grouping.strict`): every member is at or above the threshold
  against the group's reference; ``weakest`` is the lowest member score against it.
* COHESIVE (:mod:`~neardup_core.grouping.cohesive`): CONNECTED's groups, split into stars
  where two members are clearly less alike than the threshold.

Which member is the reference comes from a rank per document
(:func:`~neardup_core.grouping.reference.reference_rank`); a result's group table, built
from these, is :func:`neardup_core.grouping.table.group_table`.

Importing this module loads the whole grouping, SciPy included: the scan does so by this
name in a thread while its workers read (``neardup_core.scan.session``), and asks it for
:func:`reference_rank` and :func:`warm_names`, which it names for that reason.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

import numpy as np

from neardup_core.grouping import reference
from neardup_core.grouping.cohesive import cohesion_floor, cohesive_groups
from neardup_core.grouping.connected import connected_groups
from neardup_core.grouping.edges import (
    PairScores,
    check_pairs,
    no_groups,
    rank_order,
    split_groups,
)
from neardup_core.grouping.reference import reference_rank
from neardup_core.grouping.strict import strict_groups
from neardup_core.models import GroupMode


def build_groups(n_docs: int, a: np.ndarray, b: np.ndarray, score: np.ndarray,
                 threshold: float, mode: GroupMode, pair_scores: PairScores,
                 rank: np.ndarray, *, with_scores: bool = False,
                 text_class: np.ndarray | None = None, floor: float | None = None,
                 ignored: tuple[np.ndarray, np.ndarray] | None = None) -> tuple:
    """Groups of document indices (reference first) and each group's weakest score.

    ``a``/``b``/``score`` are the pairs already at or above ``threshold``. Groups hold at
    least two documents and come largest first, then by reference index; inside a group the
    reference is followed by the others by descending score against it, then index.
    With ``with_scores`` a third value holds every member's score against its reference, flat
    in group order (the caller need not score the members again).

    COHESIVE alone reads the keywords (see :func:`cohesive_groups`): ``text_class`` to treat
    exact copies as one text, ``floor`` (default :func:`cohesion_floor` of the threshold) and
    ``ignored`` pairs that must not share a group.
    """
    flat, offsets, weak, sflat = flat_groups(n_docs, a, b, score, threshold, mode, pair_scores,
                                             rank, text_class=text_class, floor=floor,
                                             ignored=ignored)
    groups = split_groups(flat, offsets)
    return (groups, weak, sflat) if with_scores else (groups, weak)


def flat_groups(n_docs: int, a: np.ndarray, b: np.ndarray, score: np.ndarray,
                threshold: float, mode: GroupMode, pair_scores: PairScores,
                rank: np.ndarray, *, text_class: np.ndarray | None = None,
                floor: float | None = None,
                ignored: tuple[np.ndarray, np.ndarray] | None = None,
                ranked: tuple[np.ndarray, np.ndarray] | None = None,
                forest: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                parts: tuple[int, np.ndarray] | None = None, parallel: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The groups of :func:`build_groups` as (members flat, offsets, weakest per group, score
    against the reference per member), without an array per group: a result's group table
    reads them so (at a million documents, a Python object per group cost a slider move some
    40-150 ms). ``ranked``: :func:`rank_positions` of ``rank``, when the caller keeps it (a
    sort of every document, the same at every threshold); ``forest``: CONNECTED's maximum
    spanning forest of these edges, when the caller keeps one (see
    :func:`~neardup_core.grouping.connected.connected_groups`), and ``parts`` its components
    when the caller has them; ``parallel``: CONNECTED may compute two parts side by side
    (see there)."""
    mode = GroupMode(mode)
    if mode == GroupMode.COHESIVE:
        lim = cohesion_floor(threshold) if floor is None else float(floor)
        flat, offsets, sflat, weak = cohesive_groups(
            n_docs, a, b, score, threshold, lim, pair_scores, rank, text_class=text_class,
            ignored=ignored)
        return flat, offsets, weak, sflat
    a, b, s, rank = check_pairs(n_docs, a, b, score, rank)
    if a.size == 0:
        return no_groups()
    order, pos = ranked if ranked is not None else rank_positions(rank)
    if mode == GroupMode.CONNECTED:
        return connected_groups(n_docs, a, b, s, pair_scores, order, pos, forest, parts,
                                parallel=parallel)
    return strict_groups(n_docs, a, b, s, pos)


def rank_positions(rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(documents in rank order, each document's place in it)."""
    order = rank_order(np.asarray(rank).astype(np.int64, copy=False).ravel())
    pos = np.empty(order.shape[0], dtype=np.int64)
    pos[order] = np.arange(order.shape[0])
    return order, pos


def warm_names(paths: Iterable[str]) -> None:
    """:func:`~neardup_core.grouping.reference.warm_names` (the ranking of ``paths`` prepared),
    then the import of the modules a result's group table is built with (its inputs, the
    regrouping): the scan calls this from its loading thread while the workers read; imported
    at the first group table, they cost the scan's serial tail some 10-15 ms (issue 22). Not
    at the top of this module: they import it."""
    reference.warm_names(paths)
    importlib.import_module("neardup_core.grouping.regroup")


__all__ = ["build_groups", "flat_groups", "reference_rank", "warm_names"]
